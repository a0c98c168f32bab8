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
const measured = measureWallOffset(() => Date.now(), () => performance.now());
const offsetUs = measured.offsetUs;

/**
 * How finely this process reads the run clock (µs): the integer microsecond, plus the width of
 * the window its place on the system clock was measured in (below). Two processes of one host
 * agree to within their two widths.
 */
export const CLOCK_READ_GRANULARITY_US = 1 + Math.ceil(measured.widthUs);

/**
 * For tests only: a host whose clock is off by a known amount. With CONVOY_TEST_CLOCK_OFFSET_MS
 * and/or CONVOY_TEST_CLOCK_DRIFT_PPM set, this process's run clock reads the true one plus the
 * offset plus the drift since CONVOY_TEST_CLOCK_SINCE_US (a true-clock instant; this module's
 * load when unset). A `convoy agent` started with them hands them, and its own instant, to the
 * workers it starts, so they all stamp with one skewed clock, as the processes of a host whose
 * clock is wrong would. This is not the clock-skew fault, which shifts only a payload's
 * service timestamp: this shifts every time the process writes in the history.
 */
export const TEST_CLOCK_ENV = { offsetMs: 'CONVOY_TEST_CLOCK_OFFSET_MS', driftPpm: 'CONVOY_TEST_CLOCK_DRIFT_PPM', sinceUs: 'CONVOY_TEST_CLOCK_SINCE_US' } as const;

export interface TestClock {
  offsetUs: number;
  driftPpm: number;
  sinceUs: number;
}

/** The test clock the environment asks for, or null (the true clock); bad values are one clear line. */
export function testClockFrom(env: NodeJS.ProcessEnv, nowUs: number): TestClock | null {
  const num = (name: string): number | undefined => {
    const v = env[name];
    if (v === undefined || v === '') return undefined;
    const n = Number(v);
    if (!Number.isFinite(n)) throw new Error(`${name}=${v}: expected a number`);
    return n;
  };
  const offsetMs = num(TEST_CLOCK_ENV.offsetMs);
  const driftPpm = num(TEST_CLOCK_ENV.driftPpm);
  if (offsetMs === undefined && driftPpm === undefined) return null;
  return { offsetUs: (offsetMs ?? 0) * 1000, driftPpm: driftPpm ?? 0, sinceUs: num(TEST_CLOCK_ENV.sinceUs) ?? nowUs };
}

const testClock = testClockFrom(process.env, Math.round(offsetUs + performance.now() * 1000));

/** This process's test clock (null: the true one), for an agent to hand to its workers. */
export function activeTestClock(): TestClock | null {
  return testClock;
}

export function nowMicros(): number {
  return microsAt(performance.now());
}

/** The run clock (as nowMicros) at a reading of performance.now() already taken: one clock read serves both. */
export function microsAt(performanceMs: number): number {
  const t = offsetUs + performanceMs * 1000;
  if (testClock === null) return Math.round(t);
  return Math.round(t + testClock.offsetUs + ((t - testClock.sinceUs) * testClock.driftPpm) / 1e6);
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
  return measureWallOffset(wallMs, monoMs, budgetMs).offsetUs;
}

/** wallOffsetMicros, with the width of the window it found (µs; the fallback's is unknown: 1000). */
function measureWallOffset(wallMs: () => number, monoMs: () => number, budgetMs = 100): { offsetUs: number; widthUs: number } {
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
  return lo <= hi ? { offsetUs: (lo + hi) / 2, widthUs: hi - lo } : { offsetUs: performance.timeOrigin * 1000, widthUs: 1000 };
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
