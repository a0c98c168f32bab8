import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupOwnership, type GroupEvent } from '../../harness/metrics/group-ownership.ts';

const ms = 1000;
const assigned = (consumer: string, at: number, ...lanes: string[]): GroupEvent => ({ type: 'rebalance', phase: 'assigned', consumer, at: at * ms, lanes });
const revoked = (consumer: string, at: number, ...lanes: string[]): GroupEvent => ({ type: 'rebalance', phase: 'revoked', consumer, at: at * ms, lanes });
const killed = (consumer: string, at: number): GroupEvent => ({ type: 'fault', phase: 'start', kind: 'kill-consumer', name: `kill-${consumer}`, at: at * ms, evidence: { consumer, pid: 1, state: 'gone' } });
const whole = { fromUs: 0, endUs: 1000 * ms };

test('group ownership: a static member back within its session gets its own lanes: no handover, only the time they had no live owner', () => {
  const g = groupOwnership([assigned('c1', 0, 'p0', 'p1'), assigned('c2', 0, 'p2'), killed('c1', 100), assigned('c1', 400, 'p0', 'p1')], whole)!;
  assert.equal(g.handovers, 0);
  assert.deepEqual(g.handoversFrom, { c1: 0, c2: 0 });
  assert.equal(g.unownedMs, 600); // two lanes, 300 ms each
  assert.equal(g.longestUnownedMs, 300);
  assert.deepEqual(g.departures, [{ fault: 'kill-c1', consumer: 'c1', at: 100 * ms, lanes: 2, takenByOthers: 0, backAfterMs: 300 }]);
});

test('group ownership: a dead dynamic member\'s lanes handed to a survivor are handovers from it; an eager revoke-and-assign of the same lanes is unowned time, not a handover', () => {
  const g = groupOwnership(
    [
      assigned('c1', 0, 'p0'), assigned('c2', 0, 'p1'),
      // eager: everything revoked and assigned again, p1 back to c2 50 ms later
      revoked('c2', 100, 'p1'), revoked('c1', 100, 'p0'), assigned('c2', 150, 'p1'), assigned('c1', 150, 'p0'),
      killed('c1', 200), assigned('c2', 700, 'p0'),
    ],
    whole,
  )!;
  assert.equal(g.handovers, 1);
  assert.deepEqual(g.handoversFrom, { c1: 1, c2: 0 });
  assert.deepEqual(g.list, [{ lane: 'p0', from: 'c1', to: 'c2', at: 700 * ms }]);
  assert.equal(g.unownedMs, 50 + 50 + 500);
  assert.equal(g.longestUnownedMs, 500);
  assert.equal(g.revocations, 2);
  // Never back in the run: no backAfterMs.
  assert.deepEqual(g.departures, [{ fault: 'kill-c1', consumer: 'c1', at: 200 * ms, lanes: 1, takenByOthers: 1 }]);
});

test('group ownership: a member that left cleanly (its revoke before the fault\'s start) and one killed whose fresh process gets one lane back while the rest go to another: each lane judged by its next owner', () => {
  const left: GroupEvent = { type: 'fault', phase: 'start', kind: 'leave-consumer', name: 'leave-c2', at: 210 * ms, evidence: { consumer: 'c2', state: 'gone' } };
  const g = groupOwnership(
    [
      assigned('c1', 0, 'p0'), assigned('c2', 0, 'p1', 'p2'), assigned('c3', 0, 'p3', 'p4'),
      revoked('c2', 200, 'p1', 'p2'), left, assigned('c1', 250, 'p1'), assigned('c1', 260, 'p2'),
      // back: p2 returns to it from c1, which is no departure's loss
      revoked('c1', 400, 'p2'), assigned('c2', 450, 'p2'),
      // cooperative: the fresh c3 is given p3 30 ms before c1 is given p4
      killed('c3', 500), assigned('c3', 600, 'p3'), assigned('c1', 630, 'p4'),
    ],
    whole,
  )!;
  assert.deepEqual(g.departures, [
    { fault: 'leave-c2', consumer: 'c2', at: 210 * ms, lanes: 2, takenByOthers: 2, backAfterMs: 240 },
    { fault: 'kill-c3', consumer: 'c3', at: 500 * ms, lanes: 2, takenByOthers: 1, backAfterMs: 100 },
  ]);
  assert.equal(g.handovers, 4);
  assert.deepEqual(g.handoversFrom, { c1: 1, c2: 2, c3: 1 });
});

test('group ownership: only the measured phase counts (the group forming is no handover), a lane still unowned at the end counts up to it, and no assignment at all is null', () => {
  const g = groupOwnership(
    [
      // the group forms before 40 ms: c1 holds everything, then gives p1 to c2
      assigned('c1', 0, 'p0', 'p1'), revoked('c1', 5, 'p1'), assigned('c2', 8, 'p1'),
      revoked('c1', 50, 'p0'), assigned('c2', 60, 'p0'), killed('c2', 900),
    ],
    { fromUs: 40 * ms, endUs: 1000 * ms },
  )!;
  assert.equal(g.handovers, 1);
  assert.deepEqual(g.list, [{ lane: 'p0', from: 'c1', to: 'c2', at: 60 * ms }]);
  assert.equal(g.unownedMs, 10 + 2 * 100);
  assert.equal(groupOwnership([revoked('c1', 0, 'p0'), killed('c1', 5)], whole), null);
});
