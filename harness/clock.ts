/**
 * The run's clock: integer microseconds since the Unix epoch, monotonic within a process
 * (performance.now()), on the system clock's scale so that every process of a run on one host
 * reads the same time; Date.now() is neither monotonic nor fine enough.
 *
 * The monotonic clock's place on the system clock is measured when this module loads, not taken
 * from performance.timeOrigin: Node reads the two clocks for timeOrigin at process start, and a
 * process descheduled between the reads (a loaded machine) keeps the gap as an offset for life.
 * One consumer's clock was seen 7 ms ahead of the other's in 1 of 15 RabbitMQ runs at load
 * 30 (ends earlier than the applies they must follow, through one shared store: false reorders).
 */
const offsetUs = wallOffsetMicros(() => Date.now(), () => performance.now());

export function nowMicros(): number {
  return Math.round(offsetUs + performance.now() * 1000);
}

/** The run clock (as nowMicros) at a reading of performance.now() already taken: one clock read serves both. */
export function microsAt(performanceMs: number): number {
  return Math.round(offsetUs + performanceMs * 1000);
}

/**
 * What to add to the monotonic clock (µs) to read the wall clock (µs), from samples of the
 * wall clock (whole ms) bracketed by monotonic reads: each sample bounds the offset to a window
 * of 1 ms plus the bracket, and samples on both sides of a millisecond tick narrow it to about
 * the time between two reads. A sample whose process was descheduled only widens its own window.
 * Spins until the window is 10 µs wide (about 1 ms: the next tick), at most `budgetMs`. Falls
 * back to timeOrigin if the wall clock stepped meanwhile (the windows do not meet).
 *
 * The budget counts descheduled time too. 40 processes started at once on 2 cores: with 20 ms,
 * 17 of them ran out of it with windows up to 865 µs wide (a unit-tier run saw nowMicros 202 µs
 * behind Date.now); with 100 ms, all 40 reached 10 µs, the slowest after 62 ms.
 */
export function wallOffsetMicros(wallMs: () => number, monoMs: () => number, budgetMs = 100): number {
  let lo = -Infinity;
  let hi = Infinity;
  const start = monoMs();
  for (;;) {
    const before = monoMs();
    const wall = wallMs();
    const after = monoMs();
    lo = Math.max(lo, (wall - after) * 1000);
    hi = Math.min(hi, (wall + 1 - before) * 1000);
    if (hi - lo <= 10 || after - start > budgetMs) break;
  }
  return lo <= hi ? (lo + hi) / 2 : performance.timeOrigin * 1000;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', done);
      clearTimeout(t);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
