/**
 * The librdkafka producer adapter (client-confluent.ts) under open-loop load against one real
 * Kafka node: thousands of sends in flight at once, each resolved by its own delivery report
 * (the opaque slot) with the partition and offset its message was written at, slots reused
 * across waves; refusals before sending are definite (through the callback send at once); acks 0
 * gives a lane and no offset.
 */
// @needs kafka
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SendAck } from '../../../harness/broker/contract.ts';
import { SendFailure } from '../../../harness/broker/contract.ts';
import { Run, payload, runNames, settings, kafkaForFile, waitFor } from './helpers.ts';

const kafka = kafkaForFile();

test('confluent: every one of many concurrent sends is acked with the lane and offset its message was written at', async () => {
  const s = settings({ client: 'confluent', topic: { partitions: 3 }, consumer: { autoCommit: false } });
  const run = await new Run(kafka.dep, s, runNames('confluent-open-loop')).init();
  try {
    const p = await run.producer();
    const keys = Array.from({ length: 40 }, (_, i) => `key-${i}`);
    const perWave = 50;
    const acked = new Map<string, SendAck>();
    // Two waves, every send of a wave issued before any ack arrives; the second wave reuses
    // the slots the first one freed.
    for (const wave of [0, 1]) {
      const sends: Promise<void>[] = [];
      for (let i = 1; i <= perWave; i++) {
        for (const key of keys) {
          const seq = wave * perWave + i;
          sends.push(p.send({ key, payload: payload(key, seq) }).then((a) => void acked.set(`${key}#${seq}`, a)));
        }
      }
      await Promise.all(sends);
    }
    const total = keys.length * perWave * 2;
    assert.equal(acked.size, total);
    for (const a of acked.values()) {
      assert.match(a.lane ?? '', /^p[0-2]$/);
      assert.ok(Number.isInteger(a.offset) && a.offset! >= 0, 'an offset with every ack');
    }
    const positions = new Set([...acked.values()].map((a) => `${a.lane}@${a.offset}`));
    assert.equal(positions.size, total, 'no two acks name the same position');

    await run.consumer('c1');
    await waitFor(() => run.received.length >= total, 30_000, `${total} deliveries`);
    for (const r of run.received) {
      const a = acked.get(`${r.key}#${r.seq}`)!;
      assert.deepEqual({ lane: r.lane, offset: r.offset }, { lane: a.lane, offset: a.offset }, `${r.key}#${r.seq}: consumed where its ack said`);
    }
    for (const key of keys) {
      const offsets = Array.from({ length: perWave * 2 }, (_, i) => acked.get(`${key}#${i + 1}`)!);
      assert.equal(new Set(offsets.map((a) => a.lane)).size, 1, `${key} on one partition`);
      for (let i = 1; i < offsets.length; i++) assert.ok(offsets[i]!.offset! > offsets[i - 1]!.offset!, `${key}: written in send order`);
    }
  } finally {
    await run.close();
  }
});

test('confluent: a message refused before sending is a definite failure, and the producer goes on', async () => {
  const run = await new Run(kafka.dep, settings({ client: 'confluent', topic: { partitions: 1 } }), runNames('confluent-refused')).init();
  try {
    const p = await run.producer();
    // librdkafka's message.max.bytes is 1000000: refused locally, never sent.
    const outcome = await p.send({ key: 'big', payload: Buffer.alloc(2_000_000) }).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(outcome instanceof SendFailure, 'the send fails');
    assert.equal(outcome.definite, true, 'MSG_SIZE_TOO_LARGE guarantees nothing was written');
    const ack = await p.send({ key: 'small', payload: payload('small', 1) });
    assert.equal(ack.lane, 'p0');
    assert.equal(ack.offset, 0, 'the refused message took no offset');

    // The callback send (the producer worker's): a refusal answers once, before the call
    // returns; a written message answers once, later, with where it was written.
    assert.ok(p.sendCallback, 'the librdkafka producer sends with a callback');
    const answers: { err: unknown; ack?: SendAck }[] = [];
    p.sendCallback({ key: 'big', payload: Buffer.alloc(2_000_000) }, (err, a) => void answers.push({ err, ack: a }));
    assert.equal(answers.length, 1, 'refused at once');
    assert.ok(answers[0]!.err instanceof SendFailure && answers[0]!.err.definite);
    const written = await new Promise<{ err: unknown; ack?: SendAck; calls: number }>((resolve) => {
      let calls = 0;
      p.sendCallback!({ key: 'small', payload: payload('small', 2) }, (err, a) => {
        calls++;
        setTimeout(() => resolve({ err, ack: a, calls }), 200); // a second answer would come within it
      });
    });
    assert.equal(written.err, null);
    assert.deepEqual(written.ack, { lane: 'p0', offset: 1 });
    assert.equal(written.calls, 1);
  } finally {
    await run.close();
  }
});

test('confluent: acks 0 gives the lane and no offset', async () => {
  const run = await new Run(kafka.dep, settings({ client: 'confluent', topic: { partitions: 2 }, producer: { acks: 0 } }), runNames('confluent-acks0')).init();
  try {
    const p = await run.producer();
    const acks = await Promise.all(Array.from({ length: 20 }, (_, i) => p.send({ key: `k${i}`, payload: payload(`k${i}`, 1) })));
    for (const a of acks) {
      assert.match(a.lane ?? '', /^p[01]$/);
      assert.equal(a.offset, undefined);
    }
  } finally {
    await run.close();
  }
});
