/**
 * A broker crash (SIGKILL) and restart on the same ports and data: a quorum queue keeps its
 * confirmed messages, a classic non-durable queue loses them, clients reconnect by themselves.
 * Also pins down a RabbitMQ 3.10.8 behaviour (README): without flushing the node's metadata,
 * a quorum queue declared moments before the crash comes back empty and without a leader.
 */
// @needs own rabbitmq
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runCleanup } from '../../../harness/runtime/cleanup.ts';
import { installedVersion, type RabbitDeployment } from '../local.ts';
import { Harness, payload, sleep, startNode, waitFor } from './helpers.ts';

let dep: RabbitDeployment;

before(async () => {
  dep = await startNode({ own: true });
});

after(async () => {
  await dep?.stop();
  await runCleanup();
});

type Group = { metadataSync: string; queues: { queue: string; messages?: number; error?: string }[] };

describe('rabbitmq node kill and restart', { timeout: 150_000 }, () => {
  it('SIGKILL + restart: quorum and classic durable keep confirmed messages, classic non-durable loses them; the hash ring is read before and after', async (ctx) => {
    const quorum = await Harness.create(dep, { topology: 'single-active', queueType: 'quorum', syncMetadata: true }, 'quorum');
    const transient = await Harness.create(dep, { topology: 'single-active', queueType: 'classic', durable: false, persistent: false, syncMetadata: true }, 'transient');
    const classic = await Harness.create(dep, { topology: 'competing', queueType: 'classic', syncMetadata: true }, 'classic');
    const hash = await Harness.create(dep, { topology: 'hash-lanes', lanes: 4, queueType: 'classic', syncMetadata: true }, 'hash');
    // Last: a later declaration with syncMetadata would flush this one's registration too.
    const raw = await Harness.create(dep, { topology: 'single-active', queueType: 'quorum', syncMetadata: false, confirms: { timeoutMs: 2000 } }, 'raw');
    try {
      assert.equal(((await quorum.admin.describeConsumerGroup!()) as Group).metadataSync, 'done');
      assert.equal(((await raw.admin.describeConsumerGroup!()) as Group).metadataSync, 'off');
      const pq = await quorum.producer('pq');
      const pr = await raw.producer('pr');
      const pt = await transient.producer('pt');
      const pc = await classic.producer('pc');
      for (const p of [pq, pr, pt, pc]) await Promise.all(Array.from({ length: 50 }, (_, s) => p.send({ key: 'k', payload: payload('k', s) })));

      type Ring = { hashRing: { buckets?: Record<string, string>; error?: string } };
      const ringBefore = ((await hash.admin.describeReplication!()) as Ring).hashRing;
      const node = dep.nodes[0]!;
      const pidBefore = node.pid();
      assert.ok(pidBefore);
      await node.stop('SIGKILL');
      assert.equal(node.pid(), undefined, 'no pid while the node is down');
      await node.start();
      assert.ok(node.pid() && node.pid() !== pidBefore);
      // Each bucket has a queue, and every lane has a bucket, before and after; whether the
      // restart moved them is the nightly scenario's question (rabbitmq-hash-lanes-restart).
      const ringAfter = ((await hash.admin.describeReplication!()) as Ring).hashRing;
      for (const ring of [ringBefore, ringAfter]) {
        assert.deepEqual(Object.keys(ring.buckets ?? {}), ['0', '1', '2', '3'], JSON.stringify(ring));
        assert.deepEqual(Object.values(ring.buckets!).sort(), (await hash.admin.lanes!()).sort());
      }
      ctx.diagnostic(`hash ring before ${JSON.stringify(ringBefore.buckets)}, after ${JSON.stringify(ringAfter.buckets)}`);

      // The producer reconnects by itself: its next send is confirmed.
      let sent = false;
      for (let i = 0; i < 100 && !sent; i++) sent = await pq.send({ key: 'k', payload: payload('k', 50) }).then(() => true, () => false);
      assert.ok(sent, 'a send after the restart is confirmed');
      await quorum.consumer('c1');
      await waitFor(() => quorum.handled.length === 51, 15_000, '51 quorum messages');
      assert.deepEqual(quorum.handled.map((x) => x.seq), [...Array(51).keys()], 'every confirmed message survived, in order');

      await classic.consumer('c1');
      await waitFor(() => classic.handled.length === 50, 15_000, '50 classic durable messages');
      assert.deepEqual(classic.handled.map((x) => x.seq), [...Array(50).keys()], 'classic durable + persistent kept them');

      const t = ((await transient.admin.describeConsumerGroup!()) as Group).queues[0]!;
      assert.ok(t.error !== undefined || t.messages === 0, `the non-durable queue lost its messages: ${JSON.stringify(t)}`);

      if (installedVersion()?.startsWith('3.10.')) {
        const r = ((await raw.admin.describeConsumerGroup!()) as Group).queues[0]!;
        await assert.rejects(pr.send({ key: 'k', payload: payload('k', 50) }), /confirm|not sent|unroutable/, 'the raw quorum queue has no leader (or is gone)');
        await sleep(500);
        assert.ok(r.error !== undefined || r.messages === 0, `3.10.8 forgets a fresh quorum queue's Raft member: ${JSON.stringify(r)}`);
      }
    } finally {
      await quorum.close();
      await transient.close();
      await classic.close();
      await hash.close();
      await raw.close({ keepDestinations: true });
    }
  });

  it('quorum requeue: x-delivery-count becomes deliveryCount 2', async () => {
    const h = await Harness.create(dep, { topology: 'single-active', queueType: 'quorum' }, 'requeue');
    try {
      const p = await h.producer();
      await h.consumer('c1', (rec) => (rec.deliveryCount === 1 ? 'requeue' : 'ack'));
      await p.send({ key: 'k', payload: payload('k', 0) });
      await waitFor(() => h.handled.length === 2, 10_000, 'the redelivery');
      assert.deepEqual(h.handled.map((x) => x.deliveryCount), [1, 2]);
    } finally {
      await h.close();
    }
  });
});
