/**
 * How the report writes numbers. Latencies are stored in microseconds; durations are written
 * by assets/units.js, the same code the pages' charts run.
 */
export { formatDuration } from './assets/units.js';

export const DASH = '—';

export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return DASH;
  return Math.round(n).toLocaleString('en-US');
}

/** A share 0..1 as a percentage with one decimal. */
export function formatShare(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return DASH;
  return `${(x * 100).toFixed(1)}%`;
}

export function formatRate(perSecond: number | null | undefined): string {
  if (perSecond === null || perSecond === undefined || !Number.isFinite(perSecond)) return DASH;
  return `${formatCount(perSecond)} msg/s`;
}

/** Seconds with one decimal. */
export function formatSeconds(s: number | null | undefined): string {
  if (s === null || s === undefined || !Number.isFinite(s)) return DASH;
  return `${s.toFixed(1)} s`;
}

/** An ISO time as "2026-11-30 02:00:00 UTC". */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return DASH;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/**
 * Rewrites run-clock times (integer µs) inside a checker note as seconds from `originUs`,
 * e.g. "applied again at 1796004010704210" -> "applied again at +8.704 s". Only numbers
 * within [loUs, hiUs] are touched, so seqs and offsets stay as they are.
 */
export function relativeTimes(text: string, originUs: number, loUs: number, hiUs: number): string {
  return text.replace(/\b\d{10,17}\b/g, (m) => {
    const us = Number(m);
    if (!(us >= loUs && us <= hiUs)) return m;
    const s = (us - originUs) / 1e6;
    return `${s >= 0 ? '+' : '−'}${Math.abs(s).toFixed(3)} s`;
  });
}
