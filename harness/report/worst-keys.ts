/** The keys the per-key detail shows: those with the most anomalies. */
import type { ReportResult } from './view.ts';

/** Informational types: they rank keys only after the others. */
const INFORMATIONAL = new Set(['retried', 'unknown-delivered']);

export interface KeyRank {
  key: string;
  /** Occurrences by anomaly type (from the result's timeline). */
  counts: Record<string, number>;
  total: number;
}

/** Up to `n` keys by anomaly count (informational ones last), ties by key name. */
export function worstKeys(result: ReportResult, n = 5): KeyRank[] {
  const byKey = new Map<string, KeyRank & { serious: number }>();
  for (const a of result.timeline?.anomalies ?? []) {
    if (a.key === null || a.key === undefined) continue;
    let r = byKey.get(a.key);
    if (!r) byKey.set(a.key, (r = { key: a.key, counts: {}, total: 0, serious: 0 }));
    r.counts[a.type] = (r.counts[a.type] ?? 0) + 1;
    r.total++;
    if (!INFORMATIONAL.has(a.type)) r.serious++;
  }
  return [...byKey.values()]
    .sort((a, b) => b.serious - a.serious || b.total - a.total || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, n)
    .map(({ key, counts, total }) => ({ key, counts, total }));
}
