import { readFileSync, writeFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from './cache.ts';
import { pidAlive } from './process.ts';

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
  startedAt: string;
  /** Who keeps it up: `convoy brokers up` (absent) or a suite, which stops it when it ends. */
  startedBy?: 'brokers-up' | 'suite';
  /** Module-specific facts needed to rebuild the Deployment (endpoint, links, ports...). */
  data: Record<string, unknown>;
}

function dir(): string {
  return cacheDir('instances');
}

export function saveInstance(rec: InstanceRecord): void {
  writeFileSync(join(dir(), `${rec.key}.json`), JSON.stringify(rec, null, 2));
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
