/**
 * SQS behaviours scenarios rely on, shown on a real ElasticMQ through @aws-sdk/client-sqs and
 * convoy's adapter (brokers/sqs). One ElasticMQ for the file; each test has its own queues.
 */
// @needs sqs
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GetQueueUrlCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { SendFailure } from '../../../harness/broker/contract.ts';
import { ToxiproxyApi } from '../../../harness/net/toxiproxy.ts';
import { sqsClient } from '../connection.ts';
import { PROXY_NAME } from '../local.ts';
import { Run, payload, sleep, startElasticMQ, waitFor, brokerPerFile } from './helpers.ts';

const fx = brokerPerFile(startElasticMQ, Run.create);
const { run } = fx;

const jitter = (min: number, max: number) => sleep(min + Math.random() * (max - min));
const acked = (r: Run) => new Set(r.handled.filter((h) => h.settled === 'ack').map((h) => `${h.key}#${h.seq}`)).size;

describe('sqs on ElasticMQ', () => {
  test('deploy: the emulator is named, the clients link is a Toxiproxy proxy, admin bypasses it', () => {
    assert.equal(fx.dep.emulator?.name, 'ElasticMQ');
    assert.match(fx.dep.emulator!.version, /^1\.7\./);
    assert.equal(fx.dep.versions.elasticmq, fx.dep.emulator!.version);
    assert.deepEqual(fx.dep.links.map((l) => [l.name, l.proxies]), [['clients', [PROXY_NAME]]]);
    const ep = fx.dep.endpoint as { url: string; adminUrl: string };
    assert.notEqual(ep.url, ep.adminUrl);
    // A reused ElasticMQ (the test suite's) started before this file: no start-up of its own.
    assert.ok(fx.dep.reused ? fx.dep.startupMs === 0 : fx.dep.startupMs > 0 && fx.dep.startupMs < 60_000);
    const mem = fx.dep.memory();
    assert.ok(mem && mem.rssBytes > 0);
    process.stderr.write(`  elasticmq: start ${(fx.dep.startupMs / 1000).toFixed(1)} s, RSS ${(mem!.rssBytes / 2 ** 20).toFixed(0)} MiB\n`);
  });

  test('standard queue, competing consumers: some key is handled out of send order', async () => {
    const r = await run({ queueType: 'standard' }, 'std');
    const keys = ['k0', 'k1', 'k2', 'k3'];
    await r.sendAll(await r.producer(), keys, 30);
    const handler = async () => {
      await jitter(2, 15);
      return 'ack' as const;
    };
    await Promise.all([r.consumer('c1', handler), r.consumer('c2', handler)]);
    await waitFor(() => acked(r) === 120, 30_000, 'all 120 messages acked');
    const reordered = r.reorderedKeys();
    assert.ok(reordered.length > 0, 'expected at least one key handled out of order');
    assert.ok(new Set(r.handled.map((h) => h.lane)).size === 1, 'a standard queue is one lane');
    assert.equal(r.handled.filter((h) => h.consumer === 'c2').length > 0, true);
  });

  test('FIFO queue, competing consumers: per-group order, never one group on two consumers at once', async () => {
    const r = await run({ queueType: 'fifo' }, 'fifo');
    const keys = ['g0', 'g1', 'g2', 'g3', 'g4', 'g5'];
    const handler = async () => {
      await jitter(3, 20);
      return 'ack' as const;
    };
    await Promise.all([r.consumer('c1', handler), r.consumer('c2', handler)]);
    await r.sendAll(await r.producer(), keys, 15);
    await waitFor(() => acked(r) === 90, 30_000, 'all 90 messages acked');
    assert.deepEqual(r.reorderedKeys(), []);
    assert.deepEqual(r.overlaps(true), []);
    assert.equal(r.handled.length, 90, 'no redeliveries');
    for (const h of r.handled) assert.equal(h.lane, h.key, 'lane = MessageGroupId');
    const both = keys.filter((k) => new Set(r.of(k).map((h) => h.consumer)).size === 2);
    assert.ok(both.length > 0, 'some group moved between the consumers (else the no-overlap check is empty)');
  });

  test('FIFO: a visibility timeout shorter than the handler lets a second consumer take the group meanwhile', async () => {
    const r = await run({ queueType: 'fifo', visibilityTimeoutSeconds: 1 }, 'vis');
    const p = await r.producer();
    await r.sendAll(p, ['g'], 3);
    let slowStarted = false;
    await r.consumer(
      'c1',
      async (h) => {
        if (h.seq === 1 && !slowStarted) {
          slowStarted = true;
          await sleep(3_000);
        }
        return 'ack' as const;
      },
      { maxInFlight: 1 },
    );
    await waitFor(() => slowStarted, 10_000, 'c1 to start on g#1');
    await r.consumer('c2', () => 'ack', { maxInFlight: 1 });
    await waitFor(() => r.of('g').some((h) => h.seq === 3 && h.end !== undefined), 15_000, 'g#3 handled');
    await waitFor(() => r.of('g')[0]!.end !== undefined, 10_000, 'c1 to finish g#1');
    const g = r.of('g');
    const first = g[0]!;
    const again = g.find((h) => h.seq === 1 && h !== first);
    assert.ok(again, 'g#1 was received again while c1 still worked on it');
    assert.equal(again.consumer, 'c2');
    assert.equal(again.deliveryCount, 2);
    assert.ok(again.start < first.end!, 'the second handling started before the first ended (overlap)');
    assert.ok(r.overlaps(true).length > 0);
    const g2 = g.find((h) => h.seq === 2)!;
    assert.ok(g2.start < first.end!, 'the group moved on (g#2) while c1 still held g#1');
    // c1's delete carries the receipt handle of its (expired) receive: ElasticMQ refuses it.
    await waitFor(() => r.logs.some((l) => /consumer c1: ack on g failed.*ReceiptHandleIsInvalid/.test(l)), 5_000, 'c1 delete refused');
  });

  test('FIFO, receive.extendVisibility: a slow handler and a message held unsettled after it keep their visibility; no second receive', async () => {
    const r = await run({ queueType: 'fifo', visibilityTimeoutSeconds: 2, receive: { extendVisibility: true } }, 'extend');
    await r.sendAll(await r.producer(), ['slow', 'held'], 2);
    let heldSettled = false;
    const handler = async (h: { key: string; seq: number }, d: { settle(how: 'ack'): Promise<void> }) => {
      if (h.key === 'slow' && h.seq === 1) await sleep(5_000); // 2.5 visibility timeouts
      if (h.key === 'held' && h.seq === 1) {
        // Held unsettled after the handler returned, as a resequencer holds a message.
        setTimeout(() => void d.settle('ack').then(() => (heldSettled = true)), 5_000);
        return 'none' as const;
      }
      return 'ack' as const;
    };
    await r.consumer('c1', handler, { maxInFlight: 4, early: true });
    await r.consumer('c2', handler, { maxInFlight: 4, early: true });
    await waitFor(() => heldSettled && r.of('slow').some((h) => h.seq === 1 && h.settled === 'ack'), 15_000, 'slow#1 acked and held#1 settled');
    await waitFor(() => acked(r) === 3 && r.of('held').length >= 2, 10_000, 'held#2 handled after held#1 settled');
    await sleep(2_500); // a receive that was wrongly let through would show within one more timeout
    assert.deepEqual(r.of('slow').map((h) => h.seq), [1, 2], 'slow#1 received once');
    assert.deepEqual(r.of('held').map((h) => h.seq), [1, 2], 'held#1 received once');
    assert.deepEqual(r.overlaps(true), []);
    assert.equal(r.logs.filter((l) => /failed/.test(l)).length, 0, `no refused delete or extension: ${r.logs.join(' | ')}`);
    assert.deepEqual(await r.admin.depth('main'), { visible: 0, inFlight: 0 });
  });

  test('FIFO + DLQ: a message that exhausts maxReceiveCount goes to the DLQ and its group moves on; redrive puts it back behind newer ones', async () => {
    // One message a receive: a later message of the group received in g#2's batch is given back
    // with it, and each give-back is a receive too, so g#3 could reach maxReceiveCount and be
    // moved to the DLQ as well (as SQS does), depending on how the sends and receives interleave.
    const r = await run({ queueType: 'fifo', deadLetter: { enabled: true, maxReceiveCount: 2 }, receive: { maxMessages: 1 } }, 'dlq');
    let poisoned = true;
    await r.consumer('c1', (h) => (h.seq === 2 && poisoned ? 'dead-letter' : 'ack'));
    await r.sendAll(await r.producer(), ['g'], 4);
    await waitFor(() => r.of('g').some((h) => h.seq === 4 && h.settled === 'ack'), 20_000, 'g#4 acked');
    assert.deepEqual(r.of('g').map((h) => h.seq), [1, 2, 2, 3, 4], 'g#2 received maxReceiveCount times, then the group moved on');
    assert.deepEqual(r.of('g').filter((h) => h.seq === 2).map((h) => h.deliveryCount), [1, 2]);
    await waitFor(async () => (await r.admin.depth('deadLetter')).visible === 1, 5_000, 'g#2 in the DLQ');
    assert.deepEqual(await r.admin.depth('main'), { visible: 0, inFlight: 0 });

    poisoned = false;
    assert.equal(await r.admin.redriveDeadLetters(), 1);
    await waitFor(() => r.of('g').filter((h) => h.seq === 2).some((h) => h.settled === 'ack'), 10_000, 'redriven g#2 acked');
    assert.deepEqual(r.of('g').map((h) => h.seq), [1, 2, 2, 3, 4, 2], 'the redriven message lands after newer ones (a regression)');
    assert.deepEqual(r.reorderedKeys(), ['g']);
    assert.deepEqual(await r.admin.depth('deadLetter'), { visible: 0, inFlight: 0 });
  });

  test('remaining: visible and in-flight (received, not deleted) messages are still held; 0 once all are deleted', async () => {
    const r = await run({ queueType: 'standard', visibilityTimeoutSeconds: 30 }, 'remaining');
    await r.sendAll(await r.producer(), ['k'], 3);
    await waitFor(async () => (await r.admin.remaining()).total === 3, 5_000, '3 held before any consumer');
    // k#1 is received and released: invisible for 30 s, still on the broker.
    let released = false;
    await r.consumer('c1', (h) => {
      if (h.seq === 1 && !released) {
        released = true;
        return 'release';
      }
      return 'ack';
    });
    await waitFor(() => r.handled.filter((h) => h.settled === 'ack').length === 2, 10_000, 'k#2 and k#3 acked');
    await waitFor(async () => (await r.admin.remaining()).total === 1, 5_000, 'the released one still held');
    const held = await r.admin.remaining();
    assert.equal(held.known, true);
    const main = (held.detail as { queues: Record<string, { visible: number; notVisible: number }> }).queues[r.admin.queues.main]!;
    assert.deepEqual({ visible: main.visible, notVisible: main.notVisible }, { visible: 0, notVisible: 1 });
  });

  test('dead-letter settle "move": sent to the DLQ by the client at once, then deleted', async () => {
    const r = await run({ queueType: 'fifo', deadLetter: { enabled: true, maxReceiveCount: 5, settle: 'move' } }, 'move');
    await r.consumer('c1', (h) => (h.seq === 1 ? 'dead-letter' : 'ack'));
    await r.sendAll(await r.producer(), ['g'], 2);
    await waitFor(() => r.of('g').some((h) => h.seq === 2 && h.settled === 'ack'), 10_000, 'g#2 acked');
    assert.deepEqual(r.of('g').map((h) => h.seq), [1, 2], 'handled once, no receive exhaustion');
    await waitFor(async () => (await r.admin.depth('deadLetter')).visible === 1, 5_000, 'g#1 in the DLQ');
  });

  test('FIFO requeue gives back the rest of the batch: the group is handled again in order', async () => {
    const r = await run({ queueType: 'fifo' }, 'requeue');
    let failed = false;
    const p = await r.producer();
    await r.sendAll(p, ['g'], 4);
    await r.consumer('c1', (h) => {
      if (h.seq === 2 && !failed) {
        failed = true;
        return 'requeue';
      }
      return 'ack';
    });
    await waitFor(() => acked(r) === 4, 10_000, '4 acked');
    assert.deepEqual(r.of('g').map((h) => h.seq), [1, 2, 2, 3, 4]);
    assert.deepEqual(r.reorderedKeys(), []);
  });

  test('producer batches (SendMessageBatch of up to 10) keep each group in send order', async () => {
    const r = await run({ queueType: 'fifo', producer: { batchSize: 10, lingerMs: 5 } }, 'batch');
    const p = await r.producer();
    const keys = ['g0', 'g1', 'g2'];
    await r.sendAll(p, keys, 20);
    await r.consumer('c1');
    await waitFor(() => acked(r) === 60, 15_000, '60 acked');
    assert.deepEqual(r.reorderedKeys(), []);
    for (const k of keys) assert.deepEqual(r.of(k).map((h) => h.seq), Array.from({ length: 20 }, (_, i) => i + 1));
  });

  test('deduplication: explicit ids (producer.key.seq) and content-based both drop a resend within the window', async () => {
    for (const [over, tag] of [
      [{ queueType: 'fifo' }, 'dedup-explicit'],
      [{ queueType: 'fifo', deduplication: 'content' }, 'dedup-content'],
    ] as const) {
      const r = await run(over, tag);
      const p = await r.producer();
      const a1 = await p.send({ key: 'g', payload: payload('g', 1) });
      await p.send({ key: 'g', payload: payload('g', 1) });
      await p.send({ key: 'g', payload: payload('g', 2) });
      assert.equal(a1.lane, 'g');
      await r.consumer('c1');
      await waitFor(() => acked(r) === 2, 10_000, `${tag}: 2 acked`);
      await sleep(1_500);
      assert.deepEqual(r.of('g').map((h) => h.seq), [1, 2], `${tag}: the resend was dropped`);
    }
  });

  test('traffic goes through Toxiproxy: a disabled clients link stops sends and receives; enabling it resumes', async () => {
    const r = await run({ queueType: 'fifo', client: { maxAttempts: 2, connectTimeoutMs: 1000 } }, 'toxi');
    const p = await r.producer();
    await r.consumer('c1');
    await p.send({ key: 'g', payload: payload('g', 1) });
    await waitFor(() => acked(r) === 1, 10_000, 'g#1 acked');
    const api = new ToxiproxyApi(fx.dep.links[0]!.toxiproxyUrl);
    await api.setEnabled(PROXY_NAME, false);
    try {
      await assert.rejects(p.send({ key: 'g', payload: payload('g', 2) }), (err: unknown) => err instanceof SendFailure && !err.definite);
      // A long poll that was already inside ElasticMQ when the link went down ends within its wait.
      await sleep(1_500);
      // Put g#2 on the queue past the proxy (the admin's direct port): the consumer cannot get it.
      const direct = sqsClient(fx.dep.endpoint as never, r.settings, { admin: true });
      const url = (await direct.send(new GetQueueUrlCommand({ QueueName: r.admin.queues.main }))).QueueUrl!;
      await direct.send(new SendMessageCommand({ QueueUrl: url, MessageBody: payload('g', 2).toString('base64'), MessageGroupId: 'g', MessageDeduplicationId: 'direct-2' }));
      direct.destroy();
      await sleep(2_500);
      assert.equal(acked(r), 1, 'nothing received while the link is down');
      assert.deepEqual(await r.admin.depth('main'), { visible: 1, inFlight: 0 });
    } finally {
      await api.setEnabled(PROXY_NAME, true);
    }
    await waitFor(() => acked(r) === 2, 15_000, 'g#2 received after the link is back');
  });
});
