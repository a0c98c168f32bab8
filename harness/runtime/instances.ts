import { mkdirSync, readFileSync, writeFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from './cache.ts';
import { pidAlive } from './process.ts';
import { spareGroups } from './reaper.ts';
import { startTime, stopGroups } from './proc.ts';

/**
 * Brokers left running by `convoy brokers up`, recorded in the cache so later runs (from any
 * checkout) reuse them and `convoy brokers down|status` can find them. A record whose
 * processes are gone is stale and dropped on read.
 */
export interface InstanceRecord {
  /** Identifies a reusable setup, e.g. "kafka-4.4.0-1node". */
  key: string;
  broker: string;
  pids: number[];
  pidFiles: string[];
  /** Start time of each of `pids` (proc.ts), so a stop never signals a process that reused a pid. */
  starts?: number[];
  startedAt: string;
  /** Who keeps it up: `convoy brokers up` (absent) or a suite, which stops it when it ends. */
  startedBy?: 'brokers-up' | 'suite';
  /**
   * The suite's process, for a broker a suite started. Only that process reuses it: any other
   * would lose it mid-run when the suite ends and stops it (two suites on one machine, or a
   * run beside a suite).
   */
  ownerPid?: number;
  /** Module-specific facts needed to rebuild the Deployment (endpoint, links, ports...). */
  data: Record<string, unknown>;
}

/**
 * The records' folder. CONVOY_INSTANCES names another one: the test suite keeps its brokers in a
 * folder of its own, so its tests never reuse a developer's `brokers up` brokers, nor theirs the
 * suite's.
 */
export function instancesDir(): string {
  const own = process.env.CONVOY_INSTANCES;
  if (!own) return cacheDir('instances');
  mkdirSync(own, { recursive: true });
  return own;
}

function dir(): string {
  return instancesDir();
}

/** A shared record is `<key>.json`; a suite's own is `<key>.suite-<pid>.json`, so suites never share one. */
function fileOf(rec: Pick<InstanceRecord, 'key' | 'ownerPid'>): string {
  return join(dir(), rec.ownerPid ? `${rec.key}.suite-${rec.ownerPid}.json` : `${rec.key}.json`);
}

/** Records a broker that outlives this process; from here on the reaper leaves its processes running. */
export function saveInstance(rec: InstanceRecord): void {
  const starts = rec.pids.map((p) => startTime(p) ?? 0);
  writeFileSync(fileOf(rec), JSON.stringify({ ...rec, starts }, null, 2));
  spareGroups(rec.pids);
}

/** Drops a record: the one given, or by key the shared one and this process's suite's own. */
export function removeInstance(which: string | InstanceRecord): void {
  const files = typeof which === 'string' ? [fileOf({ key: which }), fileOf({ key: which, ownerPid: process.pid })] : [fileOf(which)];
  for (const f of files) rmSync(f, { force: true });
}

/** The live record this process may reuse: its own suite's, else the shared one (`brokers up`). */
export function loadInstance(key: string): InstanceRecord | undefined {
  for (const file of [fileOf({ key, ownerPid: process.pid }), fileOf({ key })]) {
    try {
      const rec = JSON.parse(readFileSync(file, 'utf8')) as InstanceRecord;
      if (rec.pids.every((p) => pidAlive(p))) return rec;
    } catch {
      // no such record
    }
  }
  return undefined;
}

/** Whether this process may reuse the record: shared, or its own suite's. */
export function reusableHere(rec: Pick<InstanceRecord, 'ownerPid'>): boolean {
  return !rec.ownerPid || rec.ownerPid === process.pid;
}

/** How a reusing run names the broker's owner: "started for the suite", or by `convoy brokers up`. */
export function ownerOf(rec: Pick<InstanceRecord, 'startedBy' | 'startedAt'>): string {
  return rec.startedBy === 'suite' ? 'started for the suite' : `started by \`convoy brokers up\` at ${rec.startedAt}`;
}

/** Marks a recorded broker as this suite's own (the suite stops it at its end; no other process reuses it). */
export function markStartedBySuite(key: string): void {
  const rec = loadInstance(key);
  if (!rec || rec.ownerPid) return;
  saveInstance({ ...rec, startedBy: 'suite', ownerPid: process.pid });
  rmSync(fileOf({ key }), { force: true });
}

/** Every record, live or stale, with its liveness. */
export function listInstances(): { record: InstanceRecord; alive: boolean }[] {
  return readdirSync(dir())
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => {
      try {
        const record = JSON.parse(readFileSync(join(dir(), f), 'utf8')) as InstanceRecord;
        return [{ record, alive: record.pids.every((p) => pidAlive(p)) }];
      } catch {
        return [];
      }
    });
}

/**
 * Stops a recorded instance's processes: by process group and start time when the record has
 * them, else by its pid files (records written before start times were kept).
 */
export async function stopInstance(rec: InstanceRecord, stopByPidFile: (f: string) => Promise<boolean>): Promise<number[]> {
  if (rec.starts && rec.starts.length === rec.pids.length) {
    const stopped = await stopGroups(rec.pids.map((pid, i) => ({ pid, start: rec.starts![i]!, name: rec.key })), 15_000);
    for (const f of rec.pidFiles) rmSync(f, { force: true });
    return stopped.flatMap((s) => s.pids);
  }
  const pids = rec.pids.filter((p) => pidAlive(p));
  for (const f of rec.pidFiles) await stopByPidFile(f);
  return pids;
}
