/**
 * Publish failures with ordering keys through convoy's producer, failures injected through the
 * emulator's control endpoint (/fail-publish, the same on pstest-server and convoy's emulator):
 * a publisher-side behaviour, so ordering.test.ts (pstest) and emulator.test.ts (convoy's
 * emulator) both run these.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SendFailure } from '../../../harness/broker/contract.ts';
import { payload, sleep, waitFor, type Run } from './helpers.ts';

export function publishFailureTests(run: (over: Record<string, unknown>, tag: string) => Promise<Run>): void {
  test('publish failure with an ordering key (client pause, @google-cloud/pubsub 5.3.1): the queued publishes of the key fail too, then the key is not held', async () => {
    const r = await run({ messageOrdering: true, publisher: { batchMaxMessages: 1, resume: 'never' } }, 'pubfail');
    const p = await r.producer();
    await p.send({ key: 'k', payload: payload('k', 1) });
    await r.admin.failNextPublish({ key: 'k' });
    const burst = await Promise.allSettled([2, 3, 4].map((seq) => p.send({ key: 'k', payload: payload('k', seq) })));
    const other = await p.send({ key: 'j', payload: payload('j', 1) });
    assert.equal(other.lane, 'j', 'other keys are not affected');
    for (const b of burst) {
      assert.equal(b.status, 'rejected');
      const err = (b as PromiseRejectedResult).reason;
      assert.ok(err instanceof SendFailure && err.definite, `definite SendFailure: ${err}`);
      assert.match(err.message, /FAILED_PRECONDITION/);
    }
    // What 5.3.1 does next: the key's queue drained and was dropped with its error, so this
    // publish goes out although resumePublishing was never called.
    assert.deepEqual(await p.send({ key: 'k', payload: payload('k', 5) }), { lane: 'k' });
    await r.consumer('c1');
    await waitFor(() => r.acked() === 3, 10_000, 'k#1, k#5, j#1 acked');
    assert.deepEqual(r.of('k').map((h) => h.seq), [1, 5], 'a gap where the failed publishes were');
  });

  test('publish failure with publisher.pausedKeys convoy: the key stays paused until resumed (delayed)', async () => {
    const r = await run({ messageOrdering: true, publisher: { pausedKeys: 'convoy', resume: 'delayed', resumeDelayMs: 800 } }, 'paused');
    const p = await r.producer();
    await r.admin.failNextPublish({ key: 'k' });
    await assert.rejects(p.send({ key: 'k', payload: payload('k', 1) }), (e: unknown) => e instanceof SendFailure && e.definite && /FAILED_PRECONDITION/.test(e.message));
    const failedAt = Date.now();
    await assert.rejects(p.send({ key: 'k', payload: payload('k', 2) }), (e: unknown) => e instanceof SendFailure && e.definite && /paused/.test(e.message));
    assert.deepEqual(await p.send({ key: 'j', payload: payload('j', 1) }), { lane: 'j' });
    let resumedAfter = 0;
    for (let seq = 3; ; seq++) {
      const ok = await p.send({ key: 'k', payload: payload('k', seq) }).then(
        () => true,
        () => false,
      );
      if (ok) {
        resumedAfter = Date.now() - failedAt;
        break;
      }
      await sleep(100);
    }
    assert.ok(resumedAfter >= 700 && resumedAfter < 3_000, `resumed after resumeDelayMs (${resumedAfter} ms)`);
  });

  test('publish failure with pausedKeys convoy and resume never: the key stays paused until resumeKey (the outbox relay\'s call)', async () => {
    const r = await run({ messageOrdering: true, publisher: { pausedKeys: 'convoy', resume: 'never' } }, 'resumekey');
    const p = await r.producer();
    await r.admin.failNextPublish({ key: 'k' });
    await assert.rejects(p.send({ key: 'k', payload: payload('k', 1) }), (e: unknown) => e instanceof SendFailure && e.definite && /FAILED_PRECONDITION/.test(e.message));
    await sleep(200);
    await assert.rejects(p.send({ key: 'k', payload: payload('k', 1) }), (e: unknown) => e instanceof SendFailure && /paused/.test(e.message));
    assert.ok(p.resumeKey, 'the Pub/Sub producer can resume a key');
    p.resumeKey('k');
    assert.deepEqual(await p.send({ key: 'k', payload: payload('k', 1) }), { lane: 'k' });
  });
}
