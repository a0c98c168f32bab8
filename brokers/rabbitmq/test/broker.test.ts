/**
 * RabbitMQ on a real private node, every client byte through Toxiproxy: the three topologies,
 * a cut link, dead-lettering, the retry queue and a redrive.
 */
// @needs rabbitmq
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SendFailure, type ProducerClient } from '../../../harness/broker/contract.ts';
import { ToxiproxyApi } from '../../../harness/net/toxiproxy.ts';
import { runCleanup } from '../../../harness/runtime/cleanup.ts';
import type { RabbitDeployment } from '../local.ts';
import { Harness, payload, sleep, startNode, waitFor } from './helpers.ts';

let dep: RabbitDeployment;

before(async () => {
  dep = await startNode();
});

after(async () => {
  await dep?.stop();
  await runCleanup();
});

async function sendAll(p: ProducerClient, msgs: [string, number][]) {
  return Promise.all(msgs.map(([k, s]) => p.send({ key: k, payload: payload(k, s) })));
}

const seqsOf = (h: Harness, key: string, consumer?: string) =>
  h.handled.filter((x) => x.key === key && (!consumer || x.consumer === consumer)).map((x) => x.seq);

describe('rabbitmq through toxiproxy', { timeout: 120_000 }, () => {
  it('produces and consumes through the proxy, per-key order kept with one consumer', async () => {
    const h = await Harness.create(dep, { topology: 'single-active' }, 'basic');
    try {
      const p = await h.producer();
      const msgs: [string, number][] = [];
      for (let s = 0; s < 20; s++) for (let k = 0; k < 10; k++) msgs.push([`k${k}`, s]);
      const acks = await sendAll(p, msgs);
      assert.ok(acks.every((a) => a.lane === `${h.names.prefix}.main`), 'ack names the queue');
      await h.consumer('c1');
      await waitFor(() => h.handled.length === 200, 15_000, '200 deliveries');
      for (let k = 0; k < 10; k++) assert.deepEqual(seqsOf(h, `k${k}`), [...Array(20).keys()]);
      assert.ok(h.handled.every((x) => x.lane === `${h.names.prefix}.main` && x.deliveryCount === 1));
      const proxy = await new ToxiproxyApi(dep.links[0]!.toxiproxyUrl).client.get('rabbitmq-amqp');
      assert.equal(new URL(String(dep.endpoint.url)).port, proxy.listen.split(':')[1], 'clients connect to the proxy');
    } finally {
      await h.close();
    }
  });

  it('a disabled clients link stops traffic; both clients reconnect by themselves after', async () => {
    const h = await Harness.create(dep, { topology: 'single-active', confirms: { timeoutMs: 1500 } }, 'link');
    const api = new ToxiproxyApi(dep.links[0]!.toxiproxyUrl);
    try {
      const p = await h.producer();
      await h.consumer('c1');
      await sendAll(p, [['a', 0], ['a', 1]]);
      await waitFor(() => h.handled.length === 2, 10_000, 'first two');

      await api.setEnabled('rabbitmq-amqp', false);
      // Definite when the producer already knew the link was gone (never published); a send
      // that raced the close was written to a dying socket and is only "maybe".
      await assert.rejects(
        p.send({ key: 'a', payload: payload('a', 2) }),
        (e: unknown) => e instanceof SendFailure && (e.definite ? /not sent/.test(e.message) : /connection lost/.test(e.message)),
        'a send while the link is down fails',
      );
      await assert.rejects(
        p.send({ key: 'a', payload: payload('a', 2) }),
        (e: unknown) => e instanceof SendFailure && e.definite === true && /not sent/.test(e.message),
        'once the drop is known, sends fail definitely (never published)',
      );
      await sleep(1000);
      assert.equal(h.handled.length, 2, 'nothing delivered while the link is down');
      assert.ok(h.groupEvents.some((g) => g.event.phase === 'revoked'), 'the consumer saw its lanes go');

      await api.setEnabled('rabbitmq-amqp', true);
      const t0 = Date.now();
      let ack;
      for (;;) {
        try {
          ack = await p.send({ key: 'a', payload: payload('a', 3) });
          break;
        } catch (e) {
          if (Date.now() - t0 > 10_000) throw e;
        }
      }
      assert.ok(ack);
      await waitFor(() => h.handled.some((x) => x.seq === 3), 10_000, 'delivery after the link is back');
      assert.deepEqual(seqsOf(h, 'a').filter((s) => s !== 2), [0, 1, 3], 'seq 2 only if its failed send had raced the close');
    } finally {
      await api.setEnabled('rabbitmq-amqp', true).catch(() => {});
      await h.close();
    }
  });

  it('competing consumers with a slow one handle a key out of send order', async () => {
    const h = await Harness.create(dep, { topology: 'competing', prefetch: 5 }, 'competing');
    try {
      const p = await h.producer();
      await h.consumer('slow', async () => {
        await sleep(40);
        return 'ack' as const;
      });
      await h.consumer('fast');
      await sendAll(p, Array.from({ length: 60 }, (_, s) => ['hot', s] as [string, number]));
      await waitFor(() => h.handled.length >= 60, 20_000, '60 deliveries');
      const order = seqsOf(h, 'hot');
      const reorders = order.filter((s, i) => i > 0 && s < order[i - 1]!).length;
      assert.ok(reorders > 0, `expected reordering, got ${order.join(',')}`);
      assert.ok(seqsOf(h, 'hot', 'slow').length > 0 && seqsOf(h, 'hot', 'fast').length > 0, 'both consumers worked');
      assert.deepEqual([...order].sort((a, b) => a - b), [...Array(60).keys()]);
    } finally {
      await h.close();
    }
  });

  it('single-active: one consumer gets everything, the standby takes over on close with redeliveries', async () => {
    const h = await Harness.create(dep, { topology: 'single-active' }, 'sac');
    try {
      const p = await h.producer();
      let closing: Promise<void> | undefined;
      const first = await h.consumer('c1', async (rec) => {
        if (rec.seq === 20 && !closing) {
          closing = h.consumers.get('c1')!.close(); // dies holding unacked messages
          await closing;
          return 'none';
        }
        await sleep(2);
        return 'ack' as const;
      });
      await h.consumer('c2');
      assert.ok(first);
      await sendAll(p, Array.from({ length: 60 }, (_, s) => ['k', s] as [string, number]));
      await waitFor(() => new Set(h.handled.map((x) => x.seq)).size === 60, 20_000, 'every seq handled');
      const c1 = seqsOf(h, 'k', 'c1');
      const c2 = seqsOf(h, 'k', 'c2');
      assert.deepEqual(c1, [...Array(21).keys()], 'c1 was the only active consumer until it closed');
      assert.equal(c2[0], 20, 'c2 starts with the message c1 died on');
      assert.deepEqual(c2, [...Array(40).keys()].map((i) => i + 20), 'c2 continues in order');
      const redelivered = h.handled.filter((x) => x.consumer === 'c2' && (x.deliveryCount ?? 1) >= 2);
      assert.ok(redelivered.length >= 1, 'the message c1 held came back as a redelivery');
      assert.ok(h.groupEvents.some((g) => g.consumer === 'c2' && g.event.phase === 'assigned'));
    } finally {
      await h.close();
    }
  });

  it('hash-lanes: every key in one queue, each queue served by one consumer, per-key order kept', async () => {
    const h = await Harness.create(dep, { topology: 'hash-lanes', lanes: 4 }, 'hash');
    try {
      const p = await h.producer();
      await h.consumer('c1');
      await h.consumer('c2');
      const msgs: [string, number][] = [];
      for (let s = 0; s < 10; s++) for (let k = 0; k < 40; k++) msgs.push([`key-${k}`, s]);
      const acks = await sendAll(p, msgs);
      assert.ok(acks.every((a) => a.lane === undefined), 'the lane is unknown at publish');
      await waitFor(() => h.handled.length === 400, 20_000, '400 deliveries');
      const lanesOfKey = new Map<string, Set<string>>();
      const consumersOfLane = new Map<string, Set<string>>();
      for (const x of h.handled) {
        (lanesOfKey.get(x.key) ?? lanesOfKey.set(x.key, new Set()).get(x.key)!).add(x.lane!);
        (consumersOfLane.get(x.lane!) ?? consumersOfLane.set(x.lane!, new Set()).get(x.lane!)!).add(x.consumer);
      }
      for (const [k, l] of lanesOfKey) assert.equal(l.size, 1, `key ${k} in lanes ${[...l]}`);
      for (const [l, c] of consumersOfLane) assert.equal(c.size, 1, `lane ${l} served by ${[...c]}`);
      assert.ok(consumersOfLane.size >= 3, `keys spread over the lanes: ${[...consumersOfLane.keys()]}`);
      for (let k = 0; k < 40; k++) assert.deepEqual(seqsOf(h, `key-${k}`), [...Array(10).keys()]);
      assert.deepEqual(await h.admin.lanes!(), [0, 1, 2, 3].map((i) => `${h.names.prefix}.lane-0${i}`));
      const group = (await h.admin.describeConsumerGroup!()) as { queues: { consumers: number }[] };
      assert.ok(group.queues.every((q) => q.consumers === 2), 'both consumers subscribed to every lane (one active each)');
    } finally {
      await h.close();
    }
  });

  it('dead-letter then redrive puts an old message on top of newer ones', async () => {
    const h = await Harness.create(dep, { topology: 'single-active', deadLetter: { enabled: true } }, 'dlx');
    try {
      const p = await h.producer();
      await h.consumer('c1', (rec) => (rec.seq === 3 && rec.deliveryCount === 1 ? 'dead-letter' : 'ack'));
      await sendAll(p, Array.from({ length: 10 }, (_, s) => ['k', s] as [string, number]));
      await waitFor(() => h.handled.length === 10, 10_000, '10 deliveries');
      const dlqDepth = async () => {
        const g = (await h.admin.describeConsumerGroup!()) as { queues: { queue: string; messages: number }[] };
        return g.queues.find((q) => q.queue.endsWith('.dlq'))?.messages;
      };
      for (let i = 0; i < 40 && (await dlqDepth()) !== 1; i++) await sleep(50);
      assert.equal(await dlqDepth(), 1);
      assert.equal(await h.admin.redriveDeadLetters!(), 1);
      await waitFor(() => h.handled.length === 11, 10_000, 'the redriven message');
      assert.deepEqual(seqsOf(h, 'k'), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 3], 'seq 3 comes back after 9: applied first behind newer messages (a reorder)');
      assert.equal(h.handled.at(-1)!.deliveryCount, 2, 'x-death says it was delivered before');
    } finally {
      await h.close();
    }
  });

  it('retry queue sends a dead-lettered message back after its TTL, and parks it at maxDeliveries', async () => {
    const h = await Harness.create(dep, { topology: 'single-active', deadLetter: { enabled: true, retryQueue: { ttlMs: 200 }, maxDeliveries: 3 } }, 'retry');
    try {
      const p = await h.producer();
      await h.consumer('c1', (rec) => (rec.seq === 1 ? 'dead-letter' : 'ack'));
      await sendAll(p, [['k', 0], ['k', 1], ['k', 2]]);
      await waitFor(() => h.handled.filter((x) => x.seq === 1).length === 3, 10_000, 'three attempts of seq 1');
      await sleep(500);
      assert.deepEqual(h.handled.filter((x) => x.seq === 1).map((x) => x.deliveryCount), [1, 2, 3]);
      const g = (await h.admin.describeConsumerGroup!()) as { queues: { queue: string; messages: number }[] };
      assert.equal(g.queues.find((q) => q.queue.endsWith('.dlq'))?.messages, 1, 'parked after the third attempt');
      assert.equal(g.queues.find((q) => q.queue.endsWith('.retry'))?.messages, 0);
    } finally {
      await h.close();
    }
  });
});

describe('remaining: what the broker still holds for the run (lost against unseen)', () => {
  it('counts queued messages per lane, unacked ones once their consumer closed, and 0 when all were acked', async () => {
    const h = await Harness.create(dep, { topology: 'hash-lanes', lanes: 2 }, 'remaining');
    const settled = async (want: number) => {
      let r = await h.admin.remaining!();
      for (let i = 0; i < 100 && r.total !== want; i++) {
        await sleep(50);
        r = await h.admin.remaining!();
      }
      return r;
    };
    try {
      const p = await h.producer();
      await sendAll(p, Array.from({ length: 20 }, (_, s) => [`key-${s}`, s] as [string, number]));
      const queued = await settled(20);
      assert.equal(queued.known, true);
      assert.equal(queued.total, 20);
      assert.equal(queued.deliverable, 20, "no dead-letter queue: all of it can be delivered");
      assert.deepEqual(Object.keys(queued.lanes!).sort(), [0, 1].map((i) => `${h.names.prefix}.lane-0${i}`));
      assert.equal(Object.values(queued.lanes!).reduce((a, b) => a + b, 0), 20);
      assert.ok(Object.values(queued.lanes!).every((n) => n > 0), `both lanes hold some: ${JSON.stringify(queued.lanes)}`);

      // Half acked, half left unsettled: while the consumer holds them the queue shows them as
      // unacked; once it closes they are queued again, and still held.
      const c1 = await h.consumer('c1', (rec) => (rec.seq < 10 ? 'ack' : 'none'), 50);
      await waitFor(() => h.handled.length === 20, 10_000, '20 deliveries');
      await c1.close();
      const half = await settled(10);
      assert.equal(half.total, 10);

      await h.consumer('c2', () => 'ack', 50);
      await waitFor(() => h.handled.filter((x) => x.consumer === 'c2').length === 10, 10_000, 'the 10 returned');
      const empty = await settled(0);
      assert.deepEqual({ known: empty.known, total: empty.total }, { known: true, total: 0 });
      assert.ok(Object.values(empty.lanes!).every((n) => n === 0));

      // A queue the broker no longer has (a transient queue over a restart) holds nothing.
      await h.admin.deleteDestinations();
      const gone = await h.admin.remaining!();
      assert.deepEqual({ known: gone.known, total: gone.total }, { known: true, total: 0 });
      assert.ok(Object.values((gone.detail as { queues: Record<string, { gone?: boolean }> }).queues).every((q) => q.gone === true));
    } finally {
      await h.close();
    }
  });
});
