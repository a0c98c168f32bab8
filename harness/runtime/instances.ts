import { readFileSync, writeFileSync, readdirSync, rmSync } from 'node:fs';
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
  /** Module-specific facts needed to rebuild the Deployment (endpoint, links, ports...). */
  data: Record<string, unknown>;
}

function dir(): string {
  return cacheDir('instances');
}

/** Records a broker that outlives this process; from here on the reaper leaves its processes running. */
export function saveInstance(rec: InstanceRecord): void {
  const starts = rec.pids.map((p) => startTime(p) ?? 0);
  writeFileSync(join(dir(), `${rec.key}.json`), JSON.stringify({ ...rec, starts }, null, 2));
  spareGroups(rec.pids);
}

export function removeInstance(key: string): void {
  rmSync(join(dir(), `${key}.json`), { force: true });
}

export function loadInstance(key: string): InstanceRecord | undefined {
  try {
    const rec = JSON.parse(readFileSync(join(dir(), `${key}.json`), 'utf8')) as InstanceRecord;
    if (rec.pids.every((p) => pidAlive(p))) return rec;
    return undefined;
  } catch {
    return undefined;
  }
}

/** How a reusing run names the broker's owner: "started for the suite", or by `convoy brokers up`. */
export function ownerOf(rec: Pick<InstanceRecord, 'startedBy' | 'startedAt'>): string {
  return rec.startedBy === 'suite' ? 'started for the suite' : `started by \`convoy brokers up\` at ${rec.startedAt}`;
}

/** Marks a recorded broker as the suite's own (the suite stops it at its end). */
export function markStartedBySuite(key: string): void {
  const rec = loadInstance(key);
  if (rec) saveInstance({ ...rec, startedBy: 'suite' });
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
