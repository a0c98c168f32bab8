/**
 * `convoy clean` (and `convoy brokers down --all`): finds everything convoy started that is
 * still running and stops it, saying what it stopped:
 *   1. brokers recorded by `convoy brokers up` (their pid files);
 *   2. process groups in the ledgers of reapers whose harness is gone (a reaper killed too);
 *   3. any process tagged with the CONVOY_OWNER of a harness that is gone (reaper.ts), in
 *      case neither ledger nor pid file names it.
 * Live runs are left alone: a tag or ledger whose harness still runs belongs to it. Only
 * processes of this cache (CONVOY_CACHE) count, so checkouts with their own cache do not
 * reach each other's. Every pid is checked against its recorded start time before a signal.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { listInstances, removeInstance, stopInstance } from './instances.ts';
import { stopByPidFile } from './process.ts';
import { allProcesses, cmdlineOf, environOf, startTime, stopGroups, type OwnedGroup } from './proc.ts';
import { OWNER_ENV, reaperDir } from './reaper.ts';

export interface Stopped {
  what: string;
  pids: number[];
}

function ownerAlive(tag: string): boolean {
  const [pid, start] = tag.split(':').map(Number);
  return pid !== undefined && start !== undefined && startTime(pid) === start;
}

/** Processes no run should stop: the shared Erlang port mapper, and reapers at work. */
function exempt(pid: number): boolean {
  const cmd = cmdlineOf(pid);
  return /(^|\/)epmd(\s|$)/.test(cmd) || /reaper-main\.[jt]s\b/.test(cmd);
}

export async function stopLeftovers(): Promise<{ stopped: Stopped[]; leftAlone: string[] }> {
  const stopped: Stopped[] = [];
  const leftAlone: string[] = [];

  for (const { record, alive } of listInstances()) {
    const pids = await stopInstance(record, stopByPidFile);
    removeInstance(record);
    stopped.push({ what: `${record.key} (convoy brokers up)${alive ? '' : ', stale record'}`, pids });
  }

  const dir = reaperDir();
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const file = join(dir, f);
    let ledger: { owner?: { pid: number; start: number }; reaper?: { pid: number; start: number }; watched: OwnedGroup[] };
    try {
      ledger = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      continue; // being written
    }
    const owner = ledger.owner;
    if (owner && startTime(owner.pid) === owner.start) {
      if (ledger.watched.length) leftAlone.push(`convoy pid ${owner.pid} is running: its ${ledger.watched.length} process group(s) are its own`);
      continue;
    }
    if (ledger.reaper && startTime(ledger.reaper.pid) === ledger.reaper.start) continue; // its reaper is at work
    for (const s of await stopGroups(ledger.watched)) stopped.push({ what: `${s.group.name} (left by convoy pid ${owner?.pid ?? '?'})`, pids: s.pids });
    rmSync(file, { force: true });
  }

  // Tagged processes of dead harnesses, by process group.
  const cache = process.env.CONVOY_CACHE ?? '';
  const groups = new Map<number, OwnedGroup>();
  const procs = allProcesses();
  for (const p of procs) {
    if (p.pid === process.pid) continue;
    const env = environOf(p.pid);
    const tag = env.get(OWNER_ENV);
    if (!tag || (env.get('CONVOY_CACHE') ?? '') !== cache || ownerAlive(tag) || exempt(p.pid)) continue;
    const g = groups.get(p.pgrp);
    const name = cmdlineOf(p.pid).slice(0, 80);
    if (!g || p.start < g.start) groups.set(p.pgrp, { pid: p.pgrp, start: p.start, name: `${name} (left by convoy pid ${tag.split(':')[0]})` });
  }
  for (const s of await stopGroups([...groups.values()])) stopped.push({ what: s.group.name, pids: s.pids });
  return { stopped, leftAlone };
}
