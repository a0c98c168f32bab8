/** Which fault windows a stalled runner left unexercised (harness/runner/runner-stall.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunnerStallWatch, unexercisedWindows } from '../../harness/runner/runner-stall.ts';
import type { FaultRecord } from '../../harness/faults/timeline.ts';

const S = 1_000_000;
const fault = (name: string, plannedStart: number, plannedEnd: number, start?: number, end?: number): FaultRecord => ({
  name, kind: 'stall', plannedStartUs: plannedStart * S, plannedEndUs: plannedEnd * S,
  ...(start !== undefined ? { startUs: start * S } : {}), ...(end !== undefined ? { endUs: end * S } : {}),
});

test('a window stalled for half or more is not exercised; less is', () => {
  const faults = [fault('a', 10, 12, 10, 12), fault('b', 20, 22, 20, 22)];
  const stalls = [{ fromUs: 10.5 * S, toUs: 11.5 * S }, { fromUs: 20 * S, toUs: 20.9 * S }];
  const reasons = unexercisedWindows(faults, stalls, 30 * S);
  assert.equal(reasons.length, 1);
  assert.match(reasons[0]!, /stalled 1000 ms of fault a's 2000 ms window/);
});

test('a stall that delayed a fault\'s start counts over the planned window too', () => {
  // Planned 10-11 s; the runner stood still from 9.9 to 11.2 s, so the fault ran 11.2-11.25 s.
  const reasons = unexercisedWindows([fault('late', 10, 11, 11.2, 11.25)], [{ fromUs: 9.9 * S, toUs: 11.2 * S }], 30 * S);
  assert.equal(reasons.length, 1);
  assert.match(reasons[0]!, /fault late's 1250 ms window/);
});

test('stalls outside every window, and faults that never started, blame nothing', () => {
  assert.deepEqual(unexercisedWindows([fault('a', 10, 12, 10, 12)], [{ fromUs: 2 * S, toUs: 9 * S }], 30 * S), []);
  assert.deepEqual(unexercisedWindows([], [{ fromUs: 2 * S, toUs: 9 * S }], 30 * S), []);
});

test('the watch records a blocked event loop as a stall', async () => {
  const watch = new RunnerStallWatch();
  await new Promise((r) => setTimeout(r, 60));
  const until = Date.now() + 400;
  while (Date.now() < until);
  await new Promise((r) => setTimeout(r, 60));
  const stalls = watch.stop();
  const longest = Math.max(0, ...stalls.map((s) => s.toUs - s.fromUs));
  assert.ok(longest >= 250_000, `longest stall ${longest} µs`);
});
