/**
 * What a worker's finished run left alive in its process: handles that keep the event loop
 * running (timers, sockets, servers, child processes), open file descriptors, listeners on
 * `process`, and anything a module reports itself (an in-process broker's open links). A
 * worker process takes another run (harness/workers/pool.ts) only when its last one left
 * nothing: a run must not be able to see or touch the one before it. Module-level state in
 * worker code is caches only (loaded modules, compiled schemas); what a module installs once for
 * the process's life says so with processWide().
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

export interface ProcessSnapshot {
  resources: string[];
  /** Open files and sockets (not pipes or event fds: a module's helper process, libuv's own), by fd. */
  fds: Map<string, string> | null;
  listeners: Map<string | symbol, Function[]>;
}

type Listener = (...args: never[]) => unknown;

const wholeProcess = new Set<Function>();
const reporters = new Set<() => string[]>();

/** A listener on `process` installed once for the process's life (not a run's leftover). */
export function processWide(listener: Listener): void {
  wholeProcess.add(listener);
}

/** A module's own account of what it still holds (e.g. open broker links); empty when nothing. */
export function reportLeftovers(report: () => string[]): void {
  reporters.add(report);
}

export function processSnapshot(): ProcessSnapshot {
  // The standard streams are the process's, opened on first use: opened now, a run that writes
  // its first line does not leave them behind (on a pipe, newer Nodes list an active PipeWrap).
  void process.stdout;
  void process.stderr;
  return {
    resources: process.getActiveResourcesInfo(),
    fds: openFds(),
    listeners: new Map(process.eventNames().map((e) => [e, process.listeners(e as 'message')])),
  };
}

/**
 * What is alive now that was not in `before`, one phrase each; empty: the process is as it was.
 * Tries a few times over about 50 ms: a file or socket closed at the run's end is released on a
 * later turn of the event loop.
 */
export async function leftovers(before: ProcessSnapshot, tries = 5): Promise<string[]> {
  let found: string[] = [];
  for (let i = 0; i < tries; i++) {
    await new Promise((r) => setTimeout(r, i === 0 ? 0 : 10));
    found = compare(before, processSnapshot());
    if (found.length === 0) return found;
  }
  return found;
}

function compare(before: ProcessSnapshot, now: ProcessSnapshot): string[] {
  const out: string[] = [];
  const had = new Map<string, number>();
  for (const r of before.resources) had.set(r, (had.get(r) ?? 0) + 1);
  for (const r of now.resources) {
    const n = had.get(r) ?? 0;
    if (n > 0) had.set(r, n - 1);
    else out.push(`an active ${r}`);
  }
  if (!now.fds || !before.fds) out.push('open files not known here');
  else {
    const opened = [...now.fds].filter(([fd, target]) => before.fds!.get(fd) !== target).map(([, target]) => target);
    const network = opened.some((t) => t.startsWith('socket:')) ? networkSockets() : new Set<string>();
    // A unix socket is a helper process's pipe (tsx's esbuild service, started on first use).
    const left = opened.filter((t) => !t.startsWith('socket:') || network.has(t));
    if (left.length > 0) out.push(`open ${left.join(', ')}`);
  }
  for (const [event, listeners] of now.listeners) {
    const old = new Set(before.listeners.get(event) ?? []);
    const added = listeners.filter((l) => !old.has(l) && !wholeProcess.has(l)).length;
    if (added > 0) out.push(`${added} '${String(event)}' listener(s) on process`);
  }
  for (const report of reporters) out.push(...report());
  return out;
}

/** This process's network (TCP, UDP) sockets, as fd targets (socket:[inode]). */
function networkSockets(): Set<string> {
  const out = new Set<string>();
  for (const table of ['tcp', 'tcp6', 'udp', 'udp6']) {
    let text = '';
    try {
      text = readFileSync(`/proc/self/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    // Columns: sl local rem st tx:rx tr:when retrnsmt uid timeout inode ...
    for (const line of text.split('\n').slice(1)) {
      const inode = line.trim().split(/\s+/)[9];
      if (inode && inode !== '0') out.add(`socket:[${inode}]`);
    }
  }
  return out;
}

/** Open files and sockets by fd (Linux /proc); null where they cannot be listed. */
function openFds(): Map<string, string> | null {
  try {
    const out = new Map<string, string>();
    for (const fd of readdirSync('/proc/self/fd')) {
      let target: string;
      try {
        target = readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        continue; // the listing's own fd, closed meanwhile
      }
      // /dev/null carries nothing from one run to the next, and newer Nodes (26) keep one open
      // once they have needed it for themselves during a run.
      if (target === '/dev/null') continue;
      if (target.startsWith('/') || target.startsWith('socket:')) out.set(fd, target);
    }
    return out;
  } catch {
    return null;
  }
}
