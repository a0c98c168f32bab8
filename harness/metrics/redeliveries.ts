/**
 * What the broker says about redelivery (the result's `consumers.redeliveries`, in every run
 * whose client reports a delivery count): each message by the highest delivery count the broker
 * gave it, and the messages never applied, by the count of their last delivery. A broker that
 * gives up after a delivery-count limit (a Kafka share group archives the record, a queue
 * dead-letters it) leaves messages here at that count that the application was never told of;
 * a consumer that gave a message up itself leaves it at the count it had then.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export interface Redeliveries {
  /** Messages by the highest delivery count the broker reported for them ("1": never redelivered). */
  byCount: Record<string, number>;
  /** Messages delivered more than once. */
  redelivered: number;
  /** Messages handled only with errors (never applied), by the delivery count of their last delivery. */
  neverApplied: Record<string, number>;
  /** Distinct keys among the never-applied ones. */
  neverAppliedKeys: number;
}

interface Line {
  type: string;
  key?: string | null;
  producer?: string | null;
  seq?: number | null;
  deliveryCount?: number;
  outcome?: string;
}

const bump = (m: Record<string, number>, k: number) => (m[String(k)] = (m[String(k)] ?? 0) + 1);

/** Null when no delivery carried a count (the client cannot tell). */
export async function redeliveries(historyFile: string): Promise<Redeliveries | null> {
  const seen = new Map<string, { max: number; applied: boolean; key: string }>();
  const lines = createInterface({ input: createReadStream(historyFile), crlfDelay: Infinity });
  for await (const raw of lines) {
    if (!raw.includes('"deliveryCount"')) continue;
    const e = JSON.parse(raw) as Line;
    if (e.type !== 'process' || e.deliveryCount === undefined || e.key == null || e.seq == null) continue;
    const id = `${e.producer ?? ''}\u0000${e.key}\u0000${e.seq}`;
    const s = seen.get(id) ?? { max: 0, applied: false, key: e.key };
    s.max = Math.max(s.max, e.deliveryCount); // counts grow: the highest is the last delivery's
    if (e.outcome === 'ok') s.applied = true;
    seen.set(id, s);
  }
  if (seen.size === 0) return null;
  const out: Redeliveries = { byCount: {}, redelivered: 0, neverApplied: {}, neverAppliedKeys: 0 };
  const keys = new Set<string>();
  for (const s of seen.values()) {
    bump(out.byCount, s.max);
    if (s.max > 1) out.redelivered++;
    if (!s.applied) {
      bump(out.neverApplied, s.max);
      keys.add(s.key);
    }
  }
  out.neverAppliedKeys = keys.size;
  return out;
}
