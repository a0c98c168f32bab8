/**
 * A producer's own re-sends on a real Kafka: kafka-own-resend and its
 * control twin, end to end. The producer's own code sends a message again when its ack is late
 * (4 s of latency on the clients link, a 2 s ack timer); by then later messages of its key
 * have gone out, both sends are written, and the copy lands behind them. Without the resend
 * option the scenario does not load, and the twin shows the same latency leaves order alone.
 */
// @needs kafka
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resends, runNightly } from '../../../test/helpers/own-resend.ts';

test('kafka-own-resend: a late ack re-sent after later messages of its key went out writes it twice, the copy behind them', async () => {
  const { result: r, history } = await runNightly('kafka-own-resend');
  assert.equal(r.verdict.status, 'pass', r.verdict.reasons.join('; '));
  const all = resends(history);
  assert.ok(all.length > 0, 'the producer re-sent nothing');
  // Recorded as they happened: each re-send is a send of the same (key, producer, seq), and here
  // the broker wrote both the first send and the copy.
  const written = all.filter((s) => s.ok === true && s.firstOk === true && s.laterSentBefore > 0);
  assert.ok(written.length > all.length / 2, `re-sends written beside their first send, after later messages of their key: ${written.length} of ${all.length}`);
  assert.equal(r.workload.resends.resent, all.length);
  assert.equal(r.workload.resends.acked, all.filter((s) => s.ok === true).length);
  assert.ok(r.anomalies.duplicate.count > 0 && r.anomalies.regression.count > 0, `duplicate ${r.anomalies.duplicate.count}, regression ${r.anomalies.regression.count}`);
  // The fault's window holds them: every re-send went out while the latency was on, or within
  // the scenario's settle time after it (acks queued behind the slow link come back late).
  const f = r.timeline.faults.find((x: any) => x.name === 'slow-link');
  const outside = all.filter((s) => s.at < f.startUs || s.at > f.endUs + r.scenario.run.settleMs * 1000);
  assert.equal(outside.length, 0, `re-sends outside the slow link's window: ${outside.length} of ${all.length}`);
});

test('kafka-own-resend-control: the same late acks, no re-send: nothing written twice, nothing behind a newer message', async () => {
  const { result: r, history } = await runNightly('kafka-own-resend-control');
  assert.equal(r.verdict.status, 'pass', r.verdict.reasons.join('; '));
  assert.equal(resends(history).length, 0);
  assert.equal(r.workload.resends, undefined);
  assert.equal(r.anomalies.duplicate.count + r.anomalies.regression.count + r.anomalies.reorder.count, 0);
  // The latency made acks later than kafka-own-resend's 2 s timer all the same (the window's
  // phase runs on through the settle time, when acks are quick again: its p90, not its median).
  const phase = r.latency.phases.find((p: any) => p.fault === 'slow-link');
  assert.ok(phase.during.publish.p90 > 2_000_000, `publish p90 during the toxic: ${phase.during.publish.p90} us`);
});
