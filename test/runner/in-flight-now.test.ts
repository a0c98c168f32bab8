import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inFlightNow } from '../../harness/runner/watch.ts';
import type { WorkerStats } from '../../harness/workers/protocol.ts';

const worker = (inFlight: number, exited: boolean) => ({ exited, stats: { inFlight } as WorkerStats });

test('in flight for the drain: a consumer killed (or gone from its group) with messages in hand holds none any more; the running ones count', () => {
  // Before, the killed one's last report (3 in flight) kept the drain from ever seeing 0 and it
  // waited out the redelivery horizon.
  assert.equal(inFlightNow([worker(3, true), worker(0, false)]), 0);
  assert.equal(inFlightNow([worker(3, true), worker(2, false), worker(1, false)]), 3);
});
