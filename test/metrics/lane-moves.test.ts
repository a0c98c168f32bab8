import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expectedMovedShare, laneMoves, type KeyWrites } from '../../harness/metrics/lane-moves.ts';

test('expected moved share: 3 -> 4 and 12 -> 16 partitions move 75% of keys; doubling moves half', () => {
  assert.equal(expectedMovedShare(3, 4), 0.75);
  assert.equal(expectedMovedShare(12, 16), 0.75);
  assert.equal(expectedMovedShare(4, 8), 0.5);
  assert.equal(expectedMovedShare(5, 5), 0);
});

test('lane moves: compares the last lane before the change with the first after the producers refreshed', () => {
  const writes: KeyWrites = new Map([
    ['a', [[10, 'p0'], [30, 'p0'], [60, 'p3']]], // moved
    ['b', [[20, 'p1'], [70, 'p1']]], // stayed
    ['c', [[25, 'p2'], [45, 'p2'], [80, 'p0']]], // wrote between the change and the refresh on the old lane, then moved
    ['d', [[90, 'p3']]], // no write before: not counted
  ]);
  const r = laneMoves({ name: 'grow', startUs: 40, evidence: { lanesBefore: 3, lanesAfter: 4 } }, writes, [50, 55], [48, 30, 42]);
  assert.equal(r.keys, 3);
  assert.equal(r.moved, 2);
  assert.equal(r.movedShare, 2 / 3);
  assert.equal(r.expectedShare, 0.75);
  assert.deepEqual(r.producersRefreshedAt, [50, 55]);
  // Refreshes begun before the change are not this change's.
  assert.deepEqual(r.producersRefreshStartedAt, [42, 48]);
  assert.equal(r.firstWriteOnNewLaneAt, 60);
});
