/**
 * A share group (consumer.groupProtocol share) through the Java client, on the Kafka the test
 * suite holds: settlements map onto share acknowledgements, and the delivery count is the
 * broker's. A record released (requeue) comes again with delivery count 2; one rejected
 * (dead-letter) never comes again, while the records after it are delivered.
 */
// @needs kafka
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sleep } from '../../../harness/clock.ts';
import { kafkaForFile, payload, Run, runNames, settings, waitFor } from './helpers.ts';

const kafka = kafkaForFile();

test('share group: requeue releases a record (delivered again, count 2), dead-letter rejects it (never again)', { timeout: 120_000 }, async () => {
  const s = settings({ client: 'java', topic: { partitions: 1 }, consumer: { groupProtocol: 'share', share: { lockDurationMs: 5000 } } });
  const run = await new Run(kafka.dep, s, runNames('share')).init();
  try {
    const c = await run.consumer('c1', {
      decide: (_d, r) => (r.seq === 1 && r.deliveryCount === 1 ? 'requeue' : r.seq === 2 ? 'dead-letter' : 'ack'),
    });
    await c.ready(60_000);
    const p = await run.producer();
    for (let seq = 1; seq <= 3; seq++) await p.send({ key: 'k', payload: payload('k', seq) });
    await waitFor(() => run.received.some((r) => r.seq === 1 && r.deliveryCount === 2) && run.received.some((r) => r.seq === 3), 30_000, 'seq 1 again and seq 3');
    await sleep(1_000); // a rejected record would come back by now
    const seen = run.received.map((r) => `${r.seq}#${r.deliveryCount}`);
    assert.deepEqual(seen.filter((x) => x.startsWith('1#')), ['1#1', '1#2'], `released once, then accepted: ${seen.join(' ')}`);
    assert.deepEqual(seen.filter((x) => x.startsWith('2#')), ['2#1'], `rejected: never delivered again: ${seen.join(' ')}`);
    assert.deepEqual(seen.filter((x) => x.startsWith('3#')), ['3#1']);
  } finally {
    await run.close();
  }
});
