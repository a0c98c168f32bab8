/** The few statistics a matrix comparison needs: a binomial interval and a median with its range. */

/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

/**
 * Wilson score interval for k successes in n trials (95%): unlike the normal approximation it
 * stays inside [0, 1] and is informative at 0 of 5 or 5 of 5. [0, 1] when n is 0.
 */
export function wilson(k: number, n: number, z = Z95): [number, number] {
  if (n === 0) return [0, 1];
  const p = k / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

export interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
}

/** Median (the mean of the middle two for an even count) and range; null for no values. */
export function spread(values: number[]): Spread | null {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const mid = v.length >> 1;
  const median = v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
  return { median, min: v[0], max: v[v.length - 1], n: v.length };
}
