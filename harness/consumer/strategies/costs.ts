/**
 * A strategy's costs, as its consumer processes measured them: what a defence costs beside
 * whether it is right (held messages, peaks, reads of another service, added latency). Every
 * strategy may report them the same way, so a table of defences can show them as columns
 * without knowing the strategy: each consumer writes its figures into its history as one
 * `strategy-costs` mark when it stops, and the analysis merges the marks (counts add up, peaks
 * take the highest, latency histograms merge) into the live strategy's `costs` in the result.
 */
import { decode, newHistogram, summarize, type LatencySummary } from '../../metrics/histogram.ts';

export const COSTS_MARK = 'strategy-costs';
/** A consumer's held messages filled its in-flight cap (it gets nothing more until a release)... */
export const CAP_STALL_MARK = 'in-flight-cap-stalled';
/** ...and a release ended that stall. */
export const CAP_STALL_END_MARK = 'in-flight-cap-freed';

/** One consumer's figures. Names are camelCase and say their unit when they have one. */
export interface StrategyCosts {
  /** Counts over the run (summed over the consumers): held, released, alerts, fetches, reads. */
  counts: Record<string, number>;
  /** Highest values seen (the highest over the consumers): peakHeld, peakHeldPerKey, peakRssBytes. */
  peaks: Record<string, number>;
  /** Latency histograms, µs, HdrHistogram V2 compressed base64 (metrics/histogram.ts encode). */
  histograms: Record<string, string>;
}

/** The figures of the whole group, as the result carries them. */
export interface MergedCosts {
  /** How many consumer processes reported. */
  consumers: number;
  counts: Record<string, number>;
  peaks: Record<string, number>;
  latency: Record<string, LatencySummary>;
  /** Group-wide figures the analysis derives from the history (held over time). */
  derived?: Record<string, unknown>;
}

export function emptyCosts(): StrategyCosts {
  return { counts: {}, peaks: {}, histograms: {} };
}

/** Merges the consumers' marks; null when none reported. */
export function mergeCosts(reports: readonly StrategyCosts[]): MergedCosts | null {
  if (reports.length === 0) return null;
  const counts: Record<string, number> = {};
  const peaks: Record<string, number> = {};
  const hists = new Map<string, ReturnType<typeof newHistogram>>();
  for (const r of reports) {
    for (const [k, v] of Object.entries(r.counts ?? {})) counts[k] = (counts[k] ?? 0) + v;
    for (const [k, v] of Object.entries(r.peaks ?? {})) peaks[k] = Math.max(peaks[k] ?? 0, v);
    for (const [k, v] of Object.entries(r.histograms ?? {})) {
      let h = hists.get(k);
      if (!h) hists.set(k, (h = newHistogram()));
      h.add(decode(v));
    }
  }
  const latency = Object.fromEntries([...hists].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, h]) => [k, summarize(h)]));
  return { consumers: reports.length, counts: sorted(counts), peaks: sorted(peaks), latency };
}

function sorted(r: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * How many messages the group held at once, from the history: a `held` mark when one was held,
 * a process event with `held` when it was released. The peak, and the count at the end of each
 * second from `fromUs` (what an unbounded buffer's growth looks like).
 */
export function heldOverTime(heldAt: readonly number[], releasedAt: readonly number[], fromUs: number, toUs: number): { peakHeldTotal: number; heldPerSecond: number[] } {
  const steps = [...heldAt.map((t) => [t, 1] as const), ...releasedAt.map((t) => [t, -1] as const)].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const seconds = Math.max(0, Math.ceil((toUs - fromUs) / 1e6));
  const perSecond = new Array<number>(seconds).fill(0);
  let now = 0;
  let peak = 0;
  let i = 0;
  for (let s = 0; s < seconds; s++) {
    const end = fromUs + (s + 1) * 1e6;
    for (; i < steps.length && steps[i]![0] < end; i++) peak = Math.max(peak, (now += steps[i]![1]));
    perSecond[s] = now;
  }
  for (; i < steps.length; i++) peak = Math.max(peak, (now += steps[i]![1]));
  return { peakHeldTotal: peak, heldPerSecond: perSecond };
}

/** A time the in-flight cap stalled one consumer: from (ms after the run's start), for how long (null: until it stopped). */
export interface CapStall {
  consumer: string;
  atMs: number;
  ms: number | null;
}

/** The cap stalls in the history, in time order (the first `limit`): when each began and how long it lasted. */
export function capStallsOf(marks: readonly { name: string; at: number; detail?: unknown }[], fromUs: number, limit = 50): CapStall[] {
  const open = new Map<string, CapStall>();
  const out: CapStall[] = [];
  for (const m of marks) {
    const consumer = String((m.detail as { consumer?: unknown } | undefined)?.consumer ?? '');
    if (m.name === CAP_STALL_MARK) {
      const s: CapStall = { consumer, atMs: Math.round((m.at - fromUs) / 1000), ms: null };
      open.set(consumer, s);
      if (out.length < limit) out.push(s);
    } else if (m.name === CAP_STALL_END_MARK) {
      const s = open.get(consumer);
      if (s) s.ms = Math.round((m.at - fromUs) / 1000) - s.atMs;
      open.delete(consumer);
    }
  }
  return out;
}

/** The live strategy's costs from a run's marks (and its releases of held messages), or null. */
export function costsFromHistory(marks: readonly { name: string; at: number; detail?: unknown }[], releasedHeld: readonly number[], fromUs: number, toUs: number): MergedCosts | null {
  const merged = mergeCosts(marks.filter((m) => m.name === COSTS_MARK).map((m) => m.detail as StrategyCosts));
  const heldAt = marks.filter((m) => m.name === 'held').map((m) => m.at);
  if (merged && heldAt.length > 0) merged.derived = heldOverTime(heldAt, releasedHeld, fromUs, toUs);
  const stalls = capStallsOf(marks, fromUs);
  if (merged && stalls.length > 0) merged.derived = { ...merged.derived, capStalls: stalls };
  return merged;
}
