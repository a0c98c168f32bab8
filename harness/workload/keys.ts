/**
 * Key choosers. A key is `<prefix><index>`, index 0-based. Concentrated distributions put their
 * weight on the lowest indices: Zipf rank r is index r-1, hotspot's hot keys are 0..hotKeys-1.
 * round-robin draws nothing: message i goes to key i mod count, so a key's k-th message is in
 * the k-th round and `workload.messages` = k x count gives every key exactly k messages.
 */
import type { Distribution, WorkloadSpec } from '../spec/types.ts';
import type { Rng } from './rng.ts';

export interface KeyChooser {
  readonly count: number;
  /** Draw a key index in [0, count) for message `index` of the plan (0-based). */
  pick(rng: Rng, index: number): number;
  /** The configured (theoretical) probability of key index i. */
  probability(index: number): number;
}

export function keyName(prefix: string, index: number): string {
  return prefix + index;
}

/** Above this many keys Zipf uses rejection-inversion instead of a CDF table (8 bytes a key). */
export const ZIPF_TABLE_LIMIT = 1 << 21;

export function keyChooser(keys: Pick<WorkloadSpec['keys'], 'count' | 'distribution'>): KeyChooser {
  const n = keys.count;
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`key count must be an integer >= 1, got ${n}`);
  const d: Distribution = keys.distribution;
  switch (d.kind) {
    case 'uniform':
      return { count: n, pick: (rng) => rng.int(n), probability: (i) => (i >= 0 && i < n ? 1 / n : 0) };
    case 'single':
      return { count: n, pick: () => 0, probability: (i) => (i === 0 ? 1 : 0) };
    case 'round-robin':
      return { count: n, pick: (_rng, index) => index % n, probability: (i) => (i >= 0 && i < n ? 1 / n : 0) };
    case 'hotspot':
      return hotspot(n, d.hotKeys, d.share);
    case 'zipf':
      return n <= ZIPF_TABLE_LIMIT ? zipfTable(n, d.s) : zipfRejectionInversion(n, d.s);
  }
}

function hotspot(n: number, hotKeys: number, share: number): KeyChooser {
  const hot = Math.max(1, Math.min(hotKeys, n));
  const cold = n - hot;
  if (cold === 0) {
    return { count: n, pick: (rng) => rng.int(n), probability: (i) => (i >= 0 && i < n ? 1 / n : 0) };
  }
  return {
    count: n,
    pick: (rng) => (rng.next() < share ? rng.int(hot) : hot + rng.int(cold)),
    probability: (i) => (i < 0 || i >= n ? 0 : i < hot ? share / hot : (1 - share) / cold),
  };
}

/** Generalised harmonic number H(n, s) = sum_{k=1..n} k^-s. */
export function harmonic(n: number, s: number): number {
  let h = 0;
  for (let k = n; k >= 1; k--) h += Math.pow(k, -s); // smallest terms first
  return h;
}

function zipfTable(n: number, s: number): KeyChooser {
  const cdf = new Float64Array(n);
  let acc = 0;
  for (let k = 1; k <= n; k++) {
    acc += Math.pow(k, -s);
    cdf[k - 1] = acc;
  }
  const total = acc;
  for (let i = 0; i < n; i++) cdf[i] /= total;
  cdf[n - 1] = 1;
  return {
    count: n,
    pick(rng) {
      const u = rng.next();
      let lo = 0;
      let hi = n - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (cdf[mid] > u) hi = mid;
        else lo = mid + 1;
      }
      return lo;
    },
    probability: (i) => (i < 0 || i >= n ? 0 : Math.pow(i + 1, -s) / total),
  };
}

/**
 * Rejection-inversion sampling (Hörmann & Derflinger 1996), as in Apache Commons RNG's
 * RejectionInversionZipfSampler: O(1) memory, about one draw a sample.
 */
function zipfRejectionInversion(n: number, s: number): KeyChooser {
  const h = (x: number) => Math.exp(-s * Math.log(x));
  const helper1 = (x: number) => (Math.abs(x) > 1e-8 ? Math.log1p(x) / x : 1 - x * (0.5 - x * (1 / 3 - 0.25 * x)));
  const helper2 = (x: number) => (Math.abs(x) > 1e-8 ? Math.expm1(x) / x : 1 + x * 0.5 * (1 + (x / 3) * (1 + 0.25 * x)));
  const hIntegral = (x: number) => {
    const logX = Math.log(x);
    return helper2((1 - s) * logX) * logX;
  };
  const hIntegralInverse = (x: number) => {
    let t = x * (1 - s);
    if (t < -1) t = -1;
    return Math.exp(helper1(t) * x);
  };
  const hIntegralX1 = hIntegral(1.5) - 1;
  const hIntegralN = hIntegral(n + 0.5);
  const sParam = 2 - hIntegralInverse(hIntegral(2.5) - h(2));
  let total = 0; // computed lazily: only probability() needs it
  return {
    count: n,
    pick(rng) {
      for (;;) {
        const u = hIntegralN + rng.next() * (hIntegralX1 - hIntegralN);
        const x = hIntegralInverse(u);
        let k = Math.floor(x + 0.5);
        if (k < 1) k = 1;
        else if (k > n) k = n;
        if (k - x <= sParam || u >= hIntegral(k + 0.5) - h(k)) return k - 1;
      }
    },
    probability(i) {
      if (i < 0 || i >= n) return 0;
      if (total === 0) total = harmonic(n, s);
      return Math.pow(i + 1, -s) / total;
    },
  };
}
