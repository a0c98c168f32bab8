/**
 * The realised key distribution of a run, from message counts: how concentrated traffic really
 * was (top 1 key, top 10 keys, top 1% of keys), how it fell on lanes, and a rank/share series
 * for a chart (log-spaced ranks, so the head and the tail both show).
 */

export interface LaneSkew {
  lane: string;
  messages: number;
  /** Share of all messages that went to this lane. */
  share: number;
  /** Distinct keys seen on this lane. */
  keys: number;
  /** The lane's busiest key and its share of the lane's messages. */
  topKey: string | null;
  topKeyShare: number;
}

export interface RankPoint {
  /** 1 = the busiest key. */
  rank: number;
  /** Share of all messages carried by the key of this rank. */
  share: number;
  /** Share carried by ranks 1..rank. */
  cumulative: number;
}

/** Its shape is part of the result's one source (harness/checker/result-schema.ts). */
export type { SkewReport } from '../checker/result-schema.ts';
import type { SkewReport } from '../checker/result-schema.ts';

export interface KeyLaneCount {
  key: string;
  lane: string;
  count: number;
}

export interface SkewOptions {
  /** Message counts per (key, lane), for the per-lane figures. */
  laneCounts?: Iterable<KeyLaneCount>;
  /** Configured key count (workload.keys.count); keys never drawn still count in "top 1%". */
  configuredKeys?: number;
  /** Maximum points in `series` (default 64). */
  points?: number;
}

export function skewReport(keyCounts: Iterable<[string, number]> | Map<string, number>, options: SkewOptions = {}): SkewReport {
  const entries = [...keyCounts].filter(([, c]) => c > 0);
  // Busiest first; ties by key name (k2 before k10) so the report is deterministic.
  entries.sort((a, b) => b[1] - a[1] || natural(a[0], b[0]));
  const total = entries.reduce((a, [, c]) => a + c, 0);
  const share = (n: number) => (total === 0 ? 0 : n / total);
  const topSum = (n: number) => {
    let s = 0;
    for (let i = 0; i < Math.min(n, entries.length); i++) s += entries[i][1];
    return s;
  };
  const keys = Math.max(options.configuredKeys ?? entries.length, entries.length);
  const onePercent = Math.max(1, Math.ceil(keys / 100));

  return {
    messages: total,
    keysSeen: entries.length,
    keys,
    top1: { key: entries[0]?.[0] ?? null, share: share(topSum(1)) },
    top10: { share: share(topSum(10)) },
    top1Percent: { keys: onePercent, share: share(topSum(onePercent)) },
    lanes: laneSkew(options.laneCounts ?? [], total),
    series: rankSeries(entries.map(([, c]) => c), total, options.points ?? 64),
  };
}

function laneSkew(counts: Iterable<KeyLaneCount>, total: number): LaneSkew[] {
  const lanes = new Map<string, Map<string, number>>();
  let laneTotal = 0;
  for (const { key, lane, count } of counts) {
    if (!(count > 0)) continue;
    let m = lanes.get(lane);
    if (!m) lanes.set(lane, (m = new Map()));
    m.set(key, (m.get(key) ?? 0) + count);
    laneTotal += count;
  }
  const denominator = laneTotal || total;
  const out: LaneSkew[] = [];
  for (const [lane, m] of lanes) {
    let messages = 0;
    let topKey: string | null = null;
    let top = 0;
    for (const [key, c] of m) {
      messages += c;
      if (c > top || (c === top && topKey !== null && natural(key, topKey) < 0)) {
        top = c;
        topKey = key;
      }
    }
    out.push({
      lane,
      messages,
      share: denominator === 0 ? 0 : messages / denominator,
      keys: m.size,
      topKey,
      topKeyShare: messages === 0 ? 0 : top / messages,
    });
  }
  return out.sort((a, b) => compareLanes(a.lane, b.lane));
}

/** Key names by their numbers: k2 before k10. */
function natural(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}

/** Lanes like "orders-2" and "orders-10" sort by their number. */
function compareLanes(a: string, b: string): number {
  const ma = /^(.*?)(\d+)$/.exec(a);
  const mb = /^(.*?)(\d+)$/.exec(b);
  if (ma && mb && ma[1] === mb[1]) return Number(ma[2]) - Number(mb[2]);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Ranks 1..10, then log-spaced up to the last rank, at most `points` of them. */
export function rankSeries(sortedCounts: number[], total: number, points: number): RankPoint[] {
  const n = sortedCounts.length;
  if (n === 0 || total === 0) return [];
  const ranks = new Set<number>();
  const linear = Math.min(n, Math.min(10, Math.max(1, points - 1)));
  for (let r = 1; r <= linear; r++) ranks.add(r);
  if (n > linear) {
    const left = points - ranks.size - 1; // the last rank always shows
    const from = Math.log(linear);
    const to = Math.log(n);
    for (let j = 1; j <= left; j++) ranks.add(Math.min(n, Math.round(Math.exp(from + ((to - from) * j) / (left + 1)))));
    ranks.add(n);
  }
  const sorted = [...ranks].sort((a, b) => a - b);
  const out: RankPoint[] = [];
  let cum = 0;
  let r = 0;
  for (const rank of sorted) {
    while (r < rank) cum += sortedCounts[r++];
    out.push({ rank, share: sortedCounts[rank - 1] / total, cumulative: cum / total });
  }
  return out;
}
