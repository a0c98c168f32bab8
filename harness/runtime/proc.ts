/**
 * What /proc says about a process, for telling a process convoy started from a stranger that
 * got its pid later: a pid is the same process only while its start time (field 22 of
 * /proc/<pid>/stat, clock ticks since boot) is the one recorded at spawn.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcInfo {
  pid: number;
  /** R running, S sleeping, T stopped, Z zombie, ... */
  state: string;
  pgrp: number;
  /** Start time in clock ticks since boot. */
  start: number;
}

export function procInfo(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command (field 2) may hold spaces and parentheses: fields start after the last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, state: f[0]!, pgrp: Number(f[2]), start: Number(f[19]) };
  } catch {
    return undefined;
  }
}

/**
 * Start time of a live process (undefined when it is gone). A zombie is gone: it has exited and
 * only waits for its parent to collect it, which a killed process's new parent may do late.
 */
export function startTime(pid: number): number | undefined {
  const p = procInfo(pid);
  return p && p.state !== 'Z' ? p.start : undefined;
}

/** Every process visible in /proc, zombies left out. */
export function allProcesses(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const p = procInfo(Number(name));
    if (p && p.state !== 'Z') out.push(p);
  }
  return out;
}

/** The environment a process started with (empty when unreadable). */
export function environOf(pid: number): Map<string, string> {
  const env = new Map<string, string>();
  try {
    for (const kv of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
      const i = kv.indexOf('=');
      if (i > 0) env.set(kv.slice(0, i), kv.slice(i + 1));
    }
  } catch {
    /* gone, or not ours to read */
  }
  return env;
}

export function cmdlineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

/** A process group convoy started: its leader's pid (= the pgid) and start time. */
export interface OwnedGroup {
  pid: number;
  start: number;
  name: string;
  /** A scratch folder of the group's (a database's data), removed once the group is stopped. */
  remove?: string;
}

/**
 * The live processes of an owned group. When the leader's pid now belongs to another process
 * (different start time), the group is not ours: a pid is never reused while a process group
 * of that id still exists, so ours is gone. Otherwise: every process of the group born no
 * earlier than the leader (the leader itself, and what it started that stayed in its group).
 */
export function groupMembers(g: OwnedGroup, procs: ProcInfo[] = allProcesses()): ProcInfo[] {
  const leader = procs.find((p) => p.pid === g.pid) ?? procInfo(g.pid);
  if (leader && leader.start !== g.start) return [];
  return procs.filter((p) => p.pgrp === g.pid && p.start >= g.start);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* gone */
  }
}

/**
 * Stops owned groups: SIGTERM (and SIGCONT, so a frozen process can act on it) to every
 * verified member, then SIGKILL to what is left after the grace period. Resolves with what
 * was found running, per group.
 */
export async function stopGroups(groups: OwnedGroup[], graceMs = 3_000): Promise<{ group: OwnedGroup; pids: number[] }[]> {
  const procs = allProcesses();
  const found = groups.map((group) => ({ group, pids: groupMembers(group, procs).map((p) => p.pid) })).filter((f) => f.pids.length > 0);
  for (const f of found) for (const pid of f.pids) (signal(pid, 'SIGTERM'), signal(pid, 'SIGCONT'));
  const alive = () => {
    const now = allProcesses();
    return found.flatMap((f) => groupMembers(f.group, now).map((p) => p.pid));
  };
  const deadline = Date.now() + graceMs;
  while (alive().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const pid of alive()) signal(pid, 'SIGKILL');
  return found;
}
