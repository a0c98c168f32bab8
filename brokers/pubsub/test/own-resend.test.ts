/**
 * A producer's own resends (its code sends again what timed out) against Pub/Sub's publisher
 * with ordering keys, on pstest. A publish that times out (DEADLINE_EXCEEDED behind 1.5 s of latency) is
 * re-sent by the producer's own code (resend.onUnknown):
 *   - with the key paused as Google documents it (held by convoy: publisher.pausedKeys convoy),
 *     the re-send is refused: an ack with ok false and the error, counted in workload.resends,
 *     and nothing lands behind a newer message;
 *   - with @google-cloud/pubsub 5.3.1 as installed holding the pause (pausedKeys client) the
 *     re-sends go out: the library drops the key's queue, and its error, once the failed batch
 *     is rejected (see brokers/pubsub/README.md), and messages of the failed batch are written twice.
 */
// @needs pubsub
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resends, runNightly } from '../../../test/helpers/own-resend.ts';

test('pubsub-own-resend-ordering-key: the paused key refuses the re-send of a timed-out publish; no copy, nothing reordered', async () => {
  const { result: r, history } = await runNightly('pubsub-own-resend-ordering-key');
  assert.equal(r.verdict.status, 'pass', r.verdict.reasons.join('; '));
  const all = resends(history);
  assert.ok(all.length > 0, 'the producer re-sent nothing');
  // Each re-send followed a first send that ended unknown, and was refused as not sent.
  assert.ok(all.every((s) => s.firstOk === null), 'a re-send whose first send did not end unknown');
  assert.ok(all.every((s) => s.ok === false && /key paused .*not sent/.test(s.error ?? '')), `a re-send not refused: ${JSON.stringify(all.find((s) => s.ok !== false))}`);
  assert.deepEqual([r.workload.resends.resent, r.workload.resends.refused, r.workload.resends.acked], [all.length, all.length, 0]);
  // Refused sends are not lost messages: they were never acked.
  assert.equal(r.anomalies.lost.count, 0);
  assert.equal(r.anomalies.duplicate.count + r.anomalies.regression.count + r.anomalies.reorder.count, 0);
});

test('pubsub-own-resend-client-pause: @google-cloud/pubsub 5.3.1 alone lets the re-sends through, and the failed batch is written twice', async () => {
  const { result: r, history } = await runNightly('pubsub-own-resend-client-pause');
  assert.equal(r.verdict.status, 'pass', r.verdict.reasons.join('; '));
  const all = resends(history);
  assert.ok(all.length > 0, 'the producer re-sent nothing');
  assert.equal(all.filter((s) => s.ok === false).length, 0, 'the client refused a re-send');
  assert.ok(all.some((s) => s.ok === true), 'no re-send was written');
  assert.ok(r.anomalies.duplicate.count > 0);
});
