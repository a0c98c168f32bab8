import type { HistoryEvent } from '../history/events.ts';
import { RateLedger, type RatesSection } from './rates.ts';
import { newHistogram, record, summarize, encode, percentileCurve, valueAt, type Histogram, type LatencySummary } from './histogram.ts';

/**
 * Latency histograms and per-second series, computed from the history in one pass (the same
 * pass that feeds the checker), so every figure can be recomputed offline from the run's
 * files. Events may come in any order.
 *
 *   publish        ack time minus actual send time (written as `sent` on the ack)
 *   publishDelay   actual minus intended send time: coordinated omission, shown not hidden
 *   endToEnd       handler start minus intended send time
 *   handler        handler end minus start
 *   keyWait        handler start minus receipt: time waiting behind earlier work of the
 *                  same key or lane (head-of-line blocking)
 */
export const METRICS = ['publish', 'publishDelay', 'endToEnd', 'handler', 'keyWait'] as const;
export type MetricName = (typeof METRICS)[number];

export interface Window {
  name: string;
  kind: string;
  startUs: number;
  endUs: number;
}

export interface CollectorOptions {
  /** Start of the measured phase (after warm-up): earlier samples are left out. */
  measureStartUs: number;
  /** Fault windows, for before / during / after figures. */
  windows: Window[];
  settleUs: number;
  bucketMs?: number;
}

type Phase = 'before' | 'during' | 'after';
const PHASES: Phase[] = ['before', 'during', 'after'];

class Series {
  readonly values: number[] = [];
  add(bucket: number, n = 1): void {
    if (bucket < 0) return;
    while (this.values.length <= bucket) this.values.push(0);
    this.values[bucket] += n;
  }
}

export class MetricsCollector {
  private whole = new Map<MetricName, Histogram>();
  /**
   * Every metric outside every fault window (and its settle time): what thresholds judge by
   * default, and (publish delay) the harness's own ability to keep its rate.
   */
  private outside = new Map<MetricName, Histogram>();
  private rates: RateLedger;
  private phases: Map<MetricName, Histogram>[][] = [];
  private series = { sent: new Series(), acked: new Series(), failed: new Series(), processed: new Series(), errors: new Series() };
  private e2eByBucket: Histogram[] = [];
  private bucketUs: number;
  private originUs: number;
  private keyCounts = new Map<string, number>();
  /** Messages per (key, lane), from acks where the broker names the lane at publish... */
  private ackKeyLanes = new Map<string, Map<string, number>>();
  /** ...and from applies otherwise (a hash exchange picks the queue after the publish). */
  private applyKeyLanes = new Map<string, Map<string, number>>();

  constructor(private readonly opts: CollectorOptions) {
    this.bucketUs = (opts.bucketMs ?? 1000) * 1000;
    this.originUs = opts.measureStartUs;
    for (const m of METRICS) {
      this.whole.set(m, newHistogram());
      this.outside.set(m, newHistogram());
    }
    this.rates = new RateLedger(opts.measureStartUs, opts.windows, opts.settleUs);
    this.phases = opts.windows.map(() => PHASES.map(() => new Map<MetricName, Histogram>()));
  }

  private bucket(us: number): number {
    return Math.floor((us - this.originUs) / this.bucketUs);
  }

  private sample(metric: MetricName, value: number, atUs: number): void {
    if (atUs < this.opts.measureStartUs) return;
    record(this.whole.get(metric)!, value);
    if (!this.opts.windows.some((w) => atUs >= w.startUs && atUs < w.endUs + this.opts.settleUs)) record(this.outside.get(metric)!, value);
    this.opts.windows.forEach((w, i) => {
      const p = atUs < w.startUs ? 0 : atUs < w.endUs + this.opts.settleUs ? 1 : 2;
      const map = this.phases[i][p];
      let h = map.get(metric);
      if (!h) map.set(metric, (h = newHistogram()));
      record(h, value);
    });
  }

  add(e: HistoryEvent): void {
    switch (e.type) {
      case 'send': {
        this.series.sent.add(this.bucket(e.at));
        // A producer's own re-send is not late against the schedule, nor more traffic for its key.
        if (e.resend !== undefined) break;
        this.rates.due(e.intended ?? e.at);
        this.rates.send(e.at);
        if (e.intended !== undefined) this.sample('publishDelay', e.at - e.intended, e.intended);
        if ((e.intended ?? e.at) >= this.opts.measureStartUs) this.keyCounts.set(e.key, (this.keyCounts.get(e.key) ?? 0) + 1);
        break;
      }
      case 'ack': {
        const sent = (e as { sent?: number }).sent;
        if (e.ok === true) {
          this.series.acked.add(this.bucket(e.at));
          if (sent !== undefined) this.sample('publish', e.at - sent, sent);
          if (e.lane !== undefined && e.lane !== null) countLane(this.ackKeyLanes, e.key, e.lane);
        } else {
          this.series.failed.add(this.bucket(e.at));
        }
        break;
      }
      case 'process': {
        if (e.intended !== undefined && e.intended !== null) {
          this.sample('endToEnd', e.start - e.intended, e.start);
          const b = this.bucket(e.start);
          if (b >= 0) {
            while (this.e2eByBucket.length <= b) this.e2eByBucket.push(newHistogram());
            record(this.e2eByBucket[b], e.start - e.intended);
          }
        }
        this.sample('keyWait', e.start - e.received, e.start);
        if (e.end !== undefined) {
          this.sample('handler', e.end - e.start, e.start);
          if (e.outcome === 'ok') {
            this.series.processed.add(this.bucket(e.end));
            this.rates.handled(e.end);
            if (e.key !== null && e.lane !== undefined && e.lane !== null && e.start >= this.opts.measureStartUs) countLane(this.applyKeyLanes, e.key, e.lane);
          }
          else this.series.errors.add(this.bucket(e.end));
        }
        break;
      }
      default:
        break;
    }
  }

  /** The result's `latency` section. */
  latency(): Record<string, unknown> {
    const whole: Record<string, LatencySummary> = {};
    const curves: Record<string, { percentile: number; us: number }[]> = {};
    const encoded: Record<string, string> = {};
    for (const [m, h] of this.whole) {
      whole[m] = summarize(h);
      curves[m] = percentileCurve(h);
      encoded[m] = encode(h);
    }
    const phases = this.opts.windows.map((w, i) => ({
      fault: w.name,
      kind: w.kind,
      ...Object.fromEntries(
        PHASES.map((p, j) => [p, Object.fromEntries([...this.phases[i][j]].map(([m, h]) => [m, summarize(h)]))]),
      ),
      // Before and after together: the run outside this one fault.
      outside: Object.fromEntries(METRICS.flatMap((m) => {
        const parts = [this.phases[i][0].get(m), this.phases[i][2].get(m)].filter((h): h is Histogram => h !== undefined);
        if (parts.length === 0) return [];
        const h = newHistogram();
        for (const p of parts) h.add(p);
        return [[m, summarize(h)]];
      })),
    }));
    const outsideFaults = Object.fromEntries([...this.outside].map(([m, h]) => [m, summarize(h)]));
    return { unit: 'us', measureStartUs: this.opts.measureStartUs, whole, outsideFaults, publishDelayOutsideFaults: outsideFaults.publishDelay, curves, phases, encoded };
  }

  /** Rates by scope: the result's `workload.rates`. */
  ratesSection(): RatesSection {
    return this.rates.section();
  }

  /** Per-second series: the result's `timeline.series`. */
  seriesSection(): Record<string, unknown> {
    const n = Math.max(...Object.values(this.series).map((s) => s.values.length), this.e2eByBucket.length);
    const pad = (v: number[]) => Array.from({ length: n }, (_, i) => v[i] ?? 0);
    const sent = pad(this.series.sent.values);
    const acked = pad(this.series.acked.values);
    const processed = pad(this.series.processed.values);
    let backlog = 0;
    const backlogSeries = acked.map((a, i) => (backlog = Math.max(0, backlog + a - processed[i])));
    const e2e = Array.from({ length: n }, (_, i) => {
      const h = this.e2eByBucket[i];
      return h && h.totalCount > 0 ? { p50: valueAt(h, 50), p99: valueAt(h, 99), max: h.maxValue } : null;
    });
    return {
      originUs: this.originUs,
      bucketMs: this.bucketUs / 1000,
      sent,
      acked,
      failed: pad(this.series.failed.values),
      processed,
      errors: pad(this.series.errors.values),
      backlog: backlogSeries,
      endToEnd: e2e,
    };
  }

  /** Key and lane counts for the skew report. */
  traffic(): { keyCounts: Map<string, number>; keyLaneCounts: { key: string; lane: string; count: number }[]; splitKeys: number } {
    let split = 0;
    const keyLaneCounts: { key: string; lane: string; count: number }[] = [];
    const source = this.ackKeyLanes.size > 0 ? this.ackKeyLanes : this.applyKeyLanes;
    for (const [key, lanes] of source) {
      if (lanes.size > 1) split++;
      for (const [lane, count] of lanes) keyLaneCounts.push({ key, lane, count });
    }
    return { keyCounts: this.keyCounts, keyLaneCounts, splitKeys: split };
  }
}

function countLane(map: Map<string, Map<string, number>>, key: string, lane: string): void {
  let lanes = map.get(key);
  if (!lanes) map.set(key, (lanes = new Map()));
  lanes.set(lane, (lanes.get(lane) ?? 0) + 1);
}
