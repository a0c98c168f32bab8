/**
 * The broker kill, on a 3-node Kafka cluster of the run's own (no other test shares that set-up,
 * and the fault kills one of its nodes): the nightly scenario end to end.
 */
// @needs own kafka
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runNightly } from '../helpers/nightly.ts';

const run = async (name: string) => (await runNightly(name)).result;

test('a broker kill in a 3-node cluster with acks=all loses no acked message; the ISR shrinks while the node is down', async () => {
  const r = await run('kafka-broker-kill');
  assert.equal(r.verdict.status, 'pass', r.verdict.reasons.join('; '));
  assert.equal(r.anomalies.lost.count, 0);
  const f = r.timeline.faults[0];
  const isrSizes = (replication: any) => Object.values(replication.lanes).map((l: any) => l.isr.length);
  assert.ok(isrSizes(f.endEvidence.whileDown).some((n: number) => n < 3), `ISR just before the restart: ${isrSizes(f.endEvidence.whileDown)}`);
  assert.ok(f.evidence.running === false);
});
