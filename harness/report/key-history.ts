/** The process events of a few keys, read from a run's history.jsonl in one pass. */
import { forEachLine } from './lines.ts';
import type { KeyProcessEvent } from './key-order.ts';

export interface KeyHistory {
  events: KeyProcessEvent[];
  /** `${producer}\u0000${seq}` of messages whose every ack was ok:false. */
  failed: Set<string>;
}

interface Acks {
  ok: boolean;
  unknown: boolean;
  failed: boolean;
}

export function readKeyHistories(historyFile: string, keys: readonly string[]): Map<string, KeyHistory> {
  const out = new Map<string, KeyHistory>(keys.map((k) => [k, { events: [], failed: new Set() }]));
  if (keys.length === 0) return out;
  const needles = keys.map((k) => JSON.stringify(k));
  const acks = new Map<string, Map<string, Acks>>(keys.map((k) => [k, new Map()]));
  forEachLine(historyFile, (line) => {
    if (!needles.some((n) => line.includes(n))) return;
    let e: Record<string, unknown>;
    try {
      e = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return; // the checker counts bad lines
    }
    const key = e.key as string;
    const h = out.get(key);
    if (!h || typeof e.seq !== 'number') return;
    if (e.type === 'process' && typeof e.start === 'number' && typeof e.consumer === 'string') {
      h.events.push({
        producer: (e.producer as string | null) ?? null,
        seq: e.seq,
        consumer: e.consumer,
        lane: (e.lane as string | undefined) ?? null,
        offset: (e.offset as number | undefined) ?? null,
        start: e.start,
        end: typeof e.end === 'number' ? e.end : null,
        outcome: e.outcome === 'ok' || e.outcome === 'error' ? e.outcome : null,
      });
    } else if (e.type === 'ack') {
      const id = `${String(e.producer)}\u0000${e.seq}`;
      const m = acks.get(key)!;
      const a = m.get(id) ?? { ok: false, unknown: false, failed: false };
      if (e.ok === true) a.ok = true;
      else if (e.ok === false) a.failed = true;
      else a.unknown = true;
      m.set(id, a);
    }
  });
  for (const [key, m] of acks) for (const [id, a] of m) if (a.failed && !a.ok && !a.unknown) out.get(key)!.failed.add(id);
  return out;
}
