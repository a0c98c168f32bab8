/**
 * What an order-service run adds to its result (`gateway`): duplicate versions (events the
 * service numbered with a version another event of the same order already had, from the send
 * events' `version` and `event` id), the HTTP latency convoy measured where requests arrive
 * and responses leave (merged HdrHistograms, µs), autocannon's own summary with its limits,
 * the request rate reached against the one asked for, and the service's store at the end
 * (the truth of the final state).
 */
import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { decode, newHistogram, summarize, type LatencySummary } from '../metrics/histogram.ts';
import type { Scenario } from '../spec/types.ts';
import { stateAt, type VersionedState } from '../workload/entity.ts';
import { AUTOCANNON_MARK, HTTP_MARK } from './contract.ts';

/** A run that reached less than this share of its asked request rate did not keep it. */
export const MIN_REQUEST_RATE_SHARE = 0.9;

export const AUTOCANNON_LIMITS = [
  'closed loop per connection: a connection sends its next request only after the answer, so a slow answer delays the requests behind it and they are never measured as late (coordinated omission)',
  "no intended start time per request; its rate limit lets each connection send its share of a second's requests as fast as answers come at the start of each second, then pause",
  "its coordinated-omission correction (9.0.0, lib/run.js) calls recordValueWithExpectedInterval(latencyMs, Math.ceil(1 / rate)) with rate in requests per second per connection: 1/rate is seconds, not the milliseconds latencies are in, and ceil makes it 1 ms whatever the rate, so every answer slower than 1 ms is back-filled with made-up samples at 1 ms steps",
  'latency in ms, whole milliseconds; non-2xx answers included',
];

export interface DuplicateVersions {
  /** Events whose (order, version) an earlier-numbered distinct event already had. */
  count: number;
  keys: number;
  /** Distinct events the service published (relay resends of one event count once). */
  events: number;
  examples: { key: string; version: number; events: number[] }[];
}

/** Duplicate versions from the send events (`version`, `event`); null when none carry them. */
export async function duplicateVersions(historyFile: string): Promise<DuplicateVersions | null> {
  const byVersion = new Map<string, Set<number>>();
  let found = false;
  const lines = createInterface({ input: createReadStream(historyFile), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.startsWith('{"type":"send"') || !line.includes('"version"')) continue;
    const e = JSON.parse(line) as { key: string; version?: number; event?: number };
    if (e.version === undefined || e.event === undefined) continue;
    found = true;
    const k = `${e.key}\u0000${e.version}`;
    let ids = byVersion.get(k);
    if (!ids) byVersion.set(k, (ids = new Set()));
    ids.add(e.event);
  }
  if (!found) return null;
  let count = 0;
  let events = 0;
  const keys = new Set<string>();
  const examples: DuplicateVersions['examples'] = [];
  for (const [k, ids] of byVersion) {
    events += ids.size;
    if (ids.size < 2) continue;
    const [key, version] = k.split('\u0000') as [string, string];
    count += ids.size - 1;
    keys.add(key);
    if (examples.length < 10) examples.push({ key, version: Number(version), events: [...ids].sort((a, b) => a - b) });
  }
  return { count, keys: keys.size, events, examples };
}

/** The order service's store at the end: every order's final state is its state after its committed events. */
export function storeTruth(storeFile: string, scenario: Scenario): { truth: Map<string, VersionedState>; orders: number; events: number } | null {
  if (!existsSync(storeFile)) return null;
  const db = new Database(storeFile, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT key, events FROM orders ORDER BY key').all() as { key: string; events: number }[];
    const truth = new Map(rows.map((r) => [r.key, { version: r.events, state: stateAt(scenario.workload.entity, r.key, r.events) }]));
    return { truth, orders: rows.length, events: rows.reduce((n, r) => n + r.events, 0) };
  } finally {
    db.close();
  }
}

/** The HTTP latency convoy measured: per process role (router, instance), merged. */
export function httpFigures(marks: { name: string; detail?: unknown }[]): Record<string, { latency: LatencySummary; byStatus: Record<string, number>; processes: string[] }> {
  const out: Record<string, { h: ReturnType<typeof newHistogram>; byStatus: Record<string, number>; processes: string[] }> = {};
  for (const m of marks) {
    if (m.name !== HTTP_MARK) continue;
    const d = m.detail as { process: string; role: string; byStatus: Record<string, number>; histogram: string };
    const r = (out[d.role] ??= { h: newHistogram(), byStatus: {}, processes: [] });
    r.h.add(decode(d.histogram));
    r.processes.push(d.process);
    for (const [s, n] of Object.entries(d.byStatus)) r.byStatus[s] = (r.byStatus[s] ?? 0) + n;
  }
  return Object.fromEntries(Object.entries(out).map(([role, r]) => [role, { latency: summarize(r.h), byStatus: r.byStatus, processes: r.processes.sort() }]));
}

/** autocannon's summary as the load driver recorded it, or null. */
export function autocannonSummary(marks: { name: string; detail?: unknown }[]): Record<string, unknown> | null {
  const m = marks.find((k) => k.name === AUTOCANNON_MARK);
  return m ? (m.detail as Record<string, unknown>) : null;
}
