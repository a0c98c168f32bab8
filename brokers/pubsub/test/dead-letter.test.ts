/**
 * The dead-letter policy on pstest, as it is: after maxDeliveryAttempts it publishes the
 * message to the dead-letter topic, but its acknowledgement of the original is ignored (it
 * acks with the message id instead of the current ack id), so the original stays in the
 * subscription: pstest publishes it to the dead-letter topic again every 10 ms and, with
 * ordering on, the key stays blocked behind it. The real service removes it and the key moves
 * on. These tests pin that down (and fail when a pstest version fixes it).
 */
// @needs pubsub
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Run, sleep, startPstest, waitFor, brokerPerFile } from './helpers.ts';

const fx = brokerPerFile(startPstest, Run.create);
const { run } = fx;

describe('pubsub dead-letter policy on pstest', () => {
  test('ordering off: a message nacked maxDeliveryAttempts times goes to the dead-letter topic and the rest moves on; redrive puts it back behind newer ones', async () => {
    const r = await run({ messageOrdering: false, deadLetter: { enabled: true, maxDeliveryAttempts: 5 } }, 'dl-unordered');
    let poisoned = true;
    await r.consumer('c1', (h) => (h.seq === 2 && poisoned ? 'dead-letter' : 'ack'), { maxInFlight: 1 });
    const p = await r.producer();
    for (let seq = 1; seq <= 3; seq++) await r.sendAll(p, ['k'], 1, seq);
    await waitFor(() => r.of('k').filter((h) => h.seq === 2).length === 5 && r.acked() === 2, 15_000, 'k#2 five times, k#1 and k#3 acked');
    assert.deepEqual(r.of('k').filter((h) => h.seq === 2).map((h) => h.deliveryCount), [1, 2, 3, 4, 5]);
    await sleep(300);
    assert.equal(r.of('k').filter((h) => h.seq === 2).length, 5, 'not delivered a sixth time');
    assert.equal(await r.admin.deadLetterCount(), 1);

    poisoned = false;
    assert.equal(await r.admin.redriveDeadLetters(), 1);
    await waitFor(() => r.of('k').some((h) => h.seq === 2 && h.settled === 'ack'), 10_000, 'redriven k#2 acked');
    const seqs = r.of('k').map((h) => h.seq);
    assert.equal(seqs[seqs.length - 1], 2, 'the redriven message lands after k#3');
    assert.ok(seqs.indexOf(3) < seqs.lastIndexOf(2));
  });

  test('pstest bug: the dead letter stays in the subscription and is re-published to the dead-letter topic', async () => {
    const r = await run({ messageOrdering: false, deadLetter: { enabled: true, maxDeliveryAttempts: 5 } }, 'dl-repeat');
    await r.consumer('c1', () => 'dead-letter');
    await r.sendAll(await r.producer(), ['k'], 1);
    await waitFor(async () => (await r.admin.deadLetterCount()) === 1, 10_000, 'k#1 in the dead-letter subscription');
    // Take it out of the dead-letter subscription for good...
    assert.equal(await r.admin.redriveDeadLetters(), 1);
    // ...the redriven copy dead-letters again (the consumer still fails it), and the original
    // is published again too: the dead-letter subscription is never empty for long.
    await sleep(500);
    assert.ok((await r.admin.deadLetterCount()) >= 1);
  });

  test('pstest bug: with ordering on, the key stays blocked behind its dead letter (the real service moves on)', async () => {
    const r = await run({ messageOrdering: true, deadLetter: { enabled: true, maxDeliveryAttempts: 5 } }, 'dl-ordered');
    await r.consumer('c1', (h) => (h.key === 'k' && h.seq === 1 ? 'dead-letter' : 'ack'));
    await r.sendAll(await r.producer(), ['k', 'j'], 3);
    await waitFor(() => r.of('k').length === 5 && r.of('j').filter((h) => h.settled === 'ack').length === 3, 15_000, 'k#1 five times, j done');
    await waitFor(async () => (await r.admin.deadLetterCount()) === 1, 5_000, 'k#1 in the dead-letter subscription');
    await sleep(1_500);
    assert.deepEqual(r.of('k').map((h) => h.seq), [1, 1, 1, 1, 1], 'k#2 and k#3 are never delivered');
  });
});
