/** The drain's endings (harness/runner/drain-rules.ts) on scripted counts, with a short poll. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { drain, type DrainProbe } from '../../harness/runner/drain-rules.ts';
import { drainBoundMs, drainPlan, DRAIN_MARGIN_MS } from '../../harness/scenario/drain-plan.ts';
import type { RemainingReport } from '../../harness/broker/contract.ts';

const never = new AbortController().signal;

function probe(counts: { acked: number; applied: number; inFlight?: number }, remaining?: () => RemainingReport): DrainProbe & { asked: number } {
  const p = {
    asked: 0,
    acked: () => counts.acked,
    applied: () => counts.applied,
    errors: () => 0,
    inFlight: () => counts.inFlight ?? 0,
    remaining: remaining
      ? async () => {
          p.asked++;
          return remaining();
        }
      : undefined,
  };
  return p;
}

test('the plan: horizon plus margin, capped by drainTimeoutMs when given', () => {
  assert.deepEqual(drainPlan(30_000, undefined), { horizonMs: 30_000 + DRAIN_MARGIN_MS, capMs: null });
  assert.equal(drainBoundMs(drainPlan(30_000, undefined)), 35_000);
  assert.equal(drainBoundMs(drainPlan(30_000, 10_000)), 10_000);
  assert.equal(drainBoundMs(drainPlan(1_000, 60_000)), 6_000);
});

test('every acked message processed: processed', async () => {
  const r = await drain(probe({ acked: 10, applied: 10 }), drainPlan(60_000, undefined), never, undefined, 20);
  assert.equal(r.endedBy, 'processed');
  assert.equal(r.drained, true);
});

test('every acked message processed and an exact broker holds nothing: processed at the first poll, no wait for quiet', async () => {
  const p = probe({ acked: 10, applied: 10 }, () => ({ known: true, exact: true, total: 0 }));
  const r = await drain(p, drainPlan(60_000, undefined), never, undefined, 20);
  assert.equal(r.endedBy, 'processed');
  assert.match(r.reason, /the broker holds nothing for the run/);
  // The wait for quiet is 1.5 s; the first poll is 20 ms in.
  assert.ok(r.waitedMs < 1_000, `${r.waitedMs} ms`);
  assert.equal(p.asked, 1);
});

test('counts met but the broker may still give a message back: the drain waits for quiet', async () => {
  for (const report of [
    { known: true, total: 0 }, // not exact (an estimate, e.g. SQS's approximate counts)
    { known: true, exact: true, total: 2 }, // exact, but two are still unsettled on the broker
  ]) {
    const r = await drain(probe({ acked: 10, applied: 10 }, () => report), drainPlan(60_000, undefined), never, undefined, 20);
    assert.equal(r.endedBy, 'processed', JSON.stringify(report));
    assert.equal(r.reason, 'every acked message was processed');
    assert.ok(r.waitedMs >= 1_500, `${JSON.stringify(report)}: ${r.waitedMs} ms`);
  }
});

test('messages missing, the broker holds nothing more: broker-empty, long before the horizon', async () => {
  const p = probe({ acked: 10, applied: 7 }, () => ({ known: true, total: 0 }));
  const r = await drain(p, drainPlan(600_000, undefined), never, undefined, 20);
  assert.equal(r.endedBy, 'broker-empty');
  assert.equal(r.drained, false);
  assert.match(r.reason, /3 acked messages not processed/);
  assert.ok(r.waitedMs < 10_000, `${r.waitedMs} ms`);
});

test('only dead-lettered messages left: nothing more can be delivered, broker-empty', async () => {
  const r = await drain(probe({ acked: 10, applied: 7 }, () => ({ known: true, total: 3, deliverable: 0 })), drainPlan(600_000, undefined), never, undefined, 20);
  assert.equal(r.endedBy, 'broker-empty');
  assert.match(r.reason, /3 dead-lettered/);
});

test('messages still on the broker: the drain waits to its cap, and says so', async () => {
  const p = probe({ acked: 10, applied: 7 }, () => ({ known: true, total: 3 }));
  const r = await drain(p, drainPlan(600_000, 2_500), never, undefined, 20);
  assert.equal(r.endedBy, 'cap');
  assert.equal(r.capMs, 2_500);
  assert.ok(p.asked >= 1);
  // A broker that cannot tell never ends it early either.
  const unknown = await drain(probe({ acked: 10, applied: 7 }, () => ({ known: false, total: null })), drainPlan(600_000, 2_000), never, undefined, 20);
  assert.equal(unknown.endedBy, 'cap');
});

test('no progress past the horizon (no cap): no-progress; nothing is asked while messages are in flight', async () => {
  const p = probe({ acked: 10, applied: 7, inFlight: 2 }, () => ({ known: true, total: 0 }));
  const r = await drain(p, drainPlan(-DRAIN_MARGIN_MS + 2_000, undefined), never, undefined, 20);
  assert.equal(r.endedBy, 'no-progress');
  assert.equal(p.asked, 0);
});

test('an abort ends it as interrupted', async () => {
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 100);
  const r = await drain(probe({ acked: 10, applied: 7 }), drainPlan(60_000, undefined), ac.signal, undefined, 20);
  assert.equal(r.endedBy, 'interrupted');
});
