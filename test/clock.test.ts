/**
 * The run clock's place on the system clock (harness/clock.ts wallOffsetMicros). Regression for
 * the skew once seen: performance.timeOrigin could be off by the time a loaded process was
 * descheduled at start (one consumer 7 ms ahead of another), so the offset is measured against
 * the wall clock instead. Simulated clocks: a monotonic clock with jittery reads and a wall
 * clock that only shows whole milliseconds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TEST_CLOCK_ENV, nowMicros, testClockFrom, wallOffsetMicros } from '../harness/clock.ts';

/** A monotonic clock (ms) that advances by `stepUs` per read, with an occasional long pause. */
function clocks(trueOffsetUs: number, stepUs: number, pauseEvery = 0, pauseUs = 0) {
  let monoUs = 12_345.678;
  let reads = 0;
  const mono = () => {
    reads++;
    monoUs += stepUs + (pauseEvery && reads % pauseEvery === 0 ? pauseUs : 0);
    return monoUs / 1000;
  };
  const wall = () => Math.floor((trueOffsetUs + monoUs) / 1000);
  return { mono, wall };
}

test('the offset is found to within a few µs although the wall clock shows whole ms', () => {
  const trueOffset = 1_796_209_852_000_000 + 7_321.4; // µs; not a whole ms
  const c = clocks(trueOffset, 0.4);
  const found = wallOffsetMicros(c.wall, c.mono);
  assert.ok(Math.abs(found - trueOffset) < 5, `found ${found - 1_796_209_852_000_000}, true 7321.4 (µs past the ms)`);
});

test('a read descheduled for 5 ms only widens its own window', () => {
  const trueOffset = 1_796_209_852_000_000 + 250.9;
  const c = clocks(trueOffset, 0.3, 5_000, 5_000); // every 1.5 ms of reads, one waits 5 ms
  const found = wallOffsetMicros(c.wall, c.mono);
  assert.ok(Math.abs(found - trueOffset) < 5, `off by ${found - trueOffset} µs`);
});

test('a wall clock that steps during the measurement: falls back to timeOrigin', () => {
  let n = 0;
  const mono = () => (n += 1) / 1000; // 1 µs per read
  const wall = () => (n < 500 ? 1_000_000 + Math.floor(n / 1000) : 2_000_000 + Math.floor(n / 1000)); // steps by 1000 s before a tick
  assert.equal(wallOffsetMicros(wall, mono, 10), performance.timeOrigin * 1000);
});

test('nowMicros reads the system clock (within the 1 ms of Date.now) and never goes back', () => {
  let prev = 0;
  for (let i = 0; i < 2000; i++) {
    const before = Date.now() * 1000;
    const t = nowMicros();
    const after = Date.now() * 1000 + 1000;
    assert.ok(t >= prev, 'monotonic');
    assert.ok(t >= before - 100 && t <= after + 100, `nowMicros ${t} outside [${before}, ${after}]`);
    prev = t;
  }
});

test('the test clock: an offset and a drift from the environment, from a shared instant; none when unset; a bad value is one line', () => {
  assert.equal(testClockFrom({}, 1_000), null);
  assert.deepEqual(testClockFrom({ [TEST_CLOCK_ENV.offsetMs]: '50' }, 1_000), { offsetUs: 50_000, driftPpm: 0, sinceUs: 1_000 });
  assert.deepEqual(testClockFrom({ [TEST_CLOCK_ENV.driftPpm]: '-20', [TEST_CLOCK_ENV.sinceUs]: '7' }, 1_000), { offsetUs: 0, driftPpm: -20, sinceUs: 7 });
  assert.throws(() => testClockFrom({ [TEST_CLOCK_ENV.offsetMs]: 'soon' }, 0), /^Error: CONVOY_TEST_CLOCK_OFFSET_MS=soon: expected a number$/);
});

test('a process started with the test clock stamps 50 ms ahead of the system clock (its history times, not a payload\'s stamp)', () => {
  const clock = fileURLToPath(new URL('../harness/clock.ts', import.meta.url));
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', `import(${JSON.stringify(clock)}).then((m) => console.log(m.nowMicros() - Date.now() * 1000))`], {
    encoding: 'utf8',
    env: { ...process.env, [TEST_CLOCK_ENV.offsetMs]: '50' },
  });
  assert.equal(r.status, 0, r.stderr);
  const ahead = Number(r.stdout.trim());
  // Date.now() shows whole ms, read just after: 50 ms ahead, within that ms (and a scheduling slip).
  assert.ok(ahead > 48_000 && ahead < 51_000, `${ahead} µs ahead`);
});
