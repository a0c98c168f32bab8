/**
 * The per-key detail: for the keys with the most anomalies, every process event as a point
 * (x = when it landed, y = seq, one series per consumer), tagged for highlighting. Compact
 * rows for the page's data blob.
 */
import { existsSync } from 'node:fs';
import { readKeyHistories } from './key-history.ts';
import { POINT_TAGS, tagKeyEvents, type OrderPoint, type PointTag } from './key-order.ts';
import type { ReportResult } from './view.ts';
import { worstKeys } from './worst-keys.ts';

/** Beyond this many untagged points per key, every n-th is kept. */
export const MAX_PLAIN_POINTS = 4000;
/** Likewise per highlight tag (its count stays exact; only the plot is thinned). */
export const MAX_TAGGED_POINTS = 2000;

export interface KeyDetail {
  key: string;
  /** Anomaly occurrences by type for this key (from the checker). */
  counts: Record<string, number>;
  consumers: string[];
  producers: string[];
  /** [seconds from origin, seq, consumer index, tag index or -1, lane, offset, outcome] */
  points: [number, number, number, number, string | null, number | null, string | null][];
  /** Points found per tag (highlighted on the plot). */
  tagged: Partial<Record<PointTag, number>>;
  processEvents: number;
  thinned: boolean;
}

export interface KeyDetailSection {
  /** Why no plot shows, when none does. */
  note: string | null;
  tags: readonly PointTag[];
  originUs: number;
  keys: KeyDetail[];
}

export function keyDetail(result: ReportResult, historyFile: string | undefined, n = 5): KeyDetailSection {
  const originUs = result.timeline?.series?.originUs ?? result.timeline?.measureStartUs ?? 0;
  const empty = (note: string): KeyDetailSection => ({ note, tags: POINT_TAGS, originUs, keys: [] });
  if (!historyFile || !existsSync(historyFile)) return empty('The run\'s history.jsonl is not available, so the per-key order cannot be shown.');
  let ranked = worstKeys(result, n);
  let note: string | null = null;
  if (ranked.length === 0) {
    const busiest = result.workload?.skew?.top1?.key;
    if (!busiest) return empty('No anomalies, and no key traffic recorded.');
    ranked = [{ key: busiest, counts: {}, total: 0 }];
    note = `No key had an anomaly; showing the busiest key, ${busiest}.`;
  }
  const histories = readKeyHistories(historyFile, ranked.map((r) => r.key));
  const keys = ranked.map((r) => {
    const h = histories.get(r.key)!;
    return toDetail(r.key, r.counts, tagKeyEvents(h.events, h.failed), originUs);
  });
  return { note, tags: POINT_TAGS, originUs, keys };
}

function toDetail(key: string, counts: Record<string, number>, points: OrderPoint[], originUs: number): KeyDetail {
  const consumers = [...new Set(points.map((p) => p.consumer))].sort();
  const producers = [...new Set(points.map((p) => p.producer ?? ''))].sort();
  // Thin by the point's plot class (its first tag, or plain), evenly within each class.
  const classOf = (p: OrderPoint) => p.tags[0] ?? 'plain';
  const sizes = new Map<string, number>();
  for (const p of points) sizes.set(classOf(p), (sizes.get(classOf(p)) ?? 0) + 1);
  const every = new Map([...sizes].map(([c, n]) => [c, Math.max(1, Math.ceil(n / (c === 'plain' ? MAX_PLAIN_POINTS : MAX_TAGGED_POINTS)))]));
  const seen = new Map<string, number>();
  const tagged: Partial<Record<PointTag, number>> = {};
  const rows: KeyDetail['points'] = [];
  for (const p of points) {
    for (const t of p.tags) tagged[t] = (tagged[t] ?? 0) + 1;
    const c = classOf(p);
    const i = seen.get(c) ?? 0;
    seen.set(c, i + 1);
    if (i % every.get(c)! !== 0) continue;
    rows.push([
      Math.round(p.at - originUs) / 1e6,
      p.seq,
      consumers.indexOf(p.consumer),
      p.tags.length ? POINT_TAGS.indexOf(p.tags[0]) : -1,
      p.lane,
      p.offset,
      p.outcome,
    ]);
  }
  return { key, counts, consumers, producers, points: rows, tagged, processEvents: points.length, thinned: [...every.values()].some((n) => n > 1) };
}
