/** The client clock's mapping to the run's (harness/client-protocol/clock-map.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClockMap } from '../../harness/client-protocol/clock-map.ts';

test('the narrowest round trip bounds the offset; a later sample agrees, a drifted one does not', () => {
  // The client's clock is the run's minus 1,000,000 µs; the ping reads it in the middle of its round trip.
  const sample = (sentUs: number, rttUs: number) => ({ sentUs, receivedUs: sentUs + rttUs, clientUs: sentUs + rttUs / 2 - 1_000_000 });
  const map = ClockMap.fromSamples([sample(10_000, 900), sample(20_000, 100), sample(30_000, 400)]);
  assert.equal(map.errorUs, 50);
  assert.equal(map.offsetUs, 1_000_000);
  assert.equal(map.toRun(5), 1_000_005);
  assert.ok(map.agrees(sample(90_000, 200)));
  // 2 ms of drift later: outside the bracket and both errors.
  const drifted = { ...sample(90_000, 200), clientUs: sample(90_000, 200).clientUs + 2_000 };
  assert.equal(map.agrees(drifted), false);
  assert.throws(() => ClockMap.fromSamples([]), /no clock samples/);
});
