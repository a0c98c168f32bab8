import * as hdr from 'hdr-histogram-js';

/**
 * Latency histograms: 64-bit counts (the 32-bit default wraps silently), integer
 * microseconds, 3 significant digits. Zero-latency samples are kept.
 */
export type Histogram = hdr.Histogram;

export function newHistogram(): Histogram {
  return hdr.build({ bitBucketSize: 64, numberOfSignificantValueDigits: 3, autoResize: true, useWebAssembly: false });
}

export function record(h: Histogram, micros: number): void {
  h.recordValue(micros < 0 ? 0 : Math.round(micros));
}

export interface LatencySummary {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  p9999: number;
  max: number;
  unit: 'us';
}

/**
 * The value at a percentile, never above the largest value recorded. HDR answers with the
 * highest value equivalent to the bucket's (its upper edge, up to 0.1% above what was
 * recorded), so a high percentile of a few thousand samples came out above the max.
 */
export function valueAt(h: Histogram, percentile: number): number {
  if (h.totalCount === 0) return 0;
  return Math.min(h.getValueAtPercentile(percentile), h.maxValue);
}

export function summarize(h: Histogram): LatencySummary {
  const n = h.totalCount;
  const at = (p: number) => valueAt(h, p);
  return {
    count: n,
    min: n === 0 ? 0 : h.minNonZeroValue === Number.MAX_SAFE_INTEGER ? 0 : Math.min(h.minNonZeroValue, at(0)),
    mean: n === 0 ? 0 : Math.round(h.mean),
    p50: at(50),
    p90: at(90),
    p99: at(99),
    p999: at(99.9),
    p9999: at(99.99),
    max: n === 0 ? 0 : h.maxValue,
    unit: 'us',
  };
}

/** Points of the percentile curve for charts: 50 .. 99.99 on a log-scaled tail. */
export const CURVE_PERCENTILES = [50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99];

export function percentileCurve(h: Histogram): { percentile: number; us: number }[] {
  if (h.totalCount === 0) return [];
  return CURVE_PERCENTILES.map((p) => ({ percentile: p, us: valueAt(h, p) }));
}

/** The V2 compressed encoding, readable by the Java and Rust HdrHistogram; runs can be merged. */
export function encode(h: Histogram): string {
  return hdr.encodeIntoCompressedBase64(h);
}

export function decode(base64: string): Histogram {
  return hdr.decodeFromCompressedBase64(base64, 64, false);
}
