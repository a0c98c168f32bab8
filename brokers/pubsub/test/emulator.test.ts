/**
 * convoy's Pub/Sub emulator (brokers/pubsub/emulator), driven only through the unmodified
 * @google-cloud/pubsub client (and convoy's adapter on it): the behaviour table of
 * brokers/pubsub/README.md. One emulator for the file, in this process on an ephemeral port;
 * each test has its own topic and subscription.
 */
// @needs own pubsub beside
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Duration, PubSub, type Message, type Subscription } from '@google-cloud/pubsub';
import { startEmulator, type PubsubEmulator } from '../emulator/index.ts';
import { OUTSTANDING_PER_KEY_LABEL } from '../emulator/labels.ts';
import pubsub from '../index.ts';
import type { PubsubAdmin } from '../admin.ts';
import { resolveSettings, type PubsubSettings } from '../settings.ts';
import { BrokerRun } from '../../../test/helpers/broker-run.ts';
import { brokerPerFile, sleep, waitFor } from './helpers.ts';
import { publishFailureTests } from './publish-failures.ts';

let emu: PubsubEmulator;
let client: PubSub;
let n = 0;
const closers: (() => Promise<unknown>)[] = [];

before(async () => {
  emu = await startEmulator({ port: 0, controlPort: 0 });
  client = new PubSub({ projectId: 'p', apiEndpoint: emu.emulatorHost, emulatorMode: true, universeDomain: 'googleapis.com' });
});
after(async () => {
  for (const c of closers.reverse()) await c().catch(() => undefined);
  await client.close();
  await emu.close();
});

/** Runs of convoy's adapter on a second in-process emulator, for the tests shared with pstest. */
const adapterRuns = brokerPerFile(
  async () => {
    const e = await startEmulator({ port: 0, controlPort: 0 });
    return { endpoint: { projectId: 'convoy-local', emulatorHost: e.emulatorHost, adminHost: e.emulatorHost, controlUrl: `http://127.0.0.1:${e.controlPort}` }, stop: () => e.close() };
  },
  (dep, over, tag) => BrokerRun.open<PubsubSettings, PubsubAdmin>(pubsub, dep.endpoint, resolveSettings({ kind: 'pubsub', emulator: 'convoy', ...over }), tag),
);

interface Got {
  data: string;
  attempt: number;
  at: number;
  msg: Message;
}

/** A topic, a subscription on it (options as CreateSubscription takes them), and an ordered publisher. */
async function setup(subOptions: Record<string, unknown>) {
  const id = `t${++n}`;
  await client.createTopic(id);
  await client.topic(id).createSubscription(`${id}-sub`, subOptions);
  const topic = client.topic(id, { messageOrdering: true, batching: { maxMessages: 100, maxMilliseconds: 5 } });
  const publish = async (key: string, items: (string | number)[]) => {
    await Promise.all(items.map((d) => topic.publishMessage({ data: Buffer.from(`${key}${d}`), ...(key ? { orderingKey: key } : {}) })));
  };
  const got: Got[] = [];
  const subscribe = (handle: (g: Got) => void, opts: { maxMessages?: number; deadline?: number; maxExtension?: number } = {}): Subscription => {
    const deadline = opts.deadline ? Duration.from({ seconds: opts.deadline }) : undefined;
    const sub = client.subscription(`${id}-sub`, {
      flowControl: { maxMessages: opts.maxMessages ?? 100, allowExcessMessages: false },
      batching: { maxMilliseconds: 5 },
      ...(deadline ? { minAckDeadline: deadline, maxAckDeadline: deadline } : {}),
      ...(opts.maxExtension ? { maxExtensionTime: Duration.from({ seconds: opts.maxExtension }) } : {}),
    });
    sub.on('message', (msg: Message) => {
      const g = { data: msg.data.toString(), attempt: msg.deliveryAttempt, at: Date.now(), msg };
      got.push(g);
      handle(g);
    });
    sub.on('error', () => undefined);
    closers.push(() => sub.close());
    return sub;
  };
  const stats = async () => (await fetch(`http://127.0.0.1:${emu.controlPort}/stats?subscription=projects/p/subscriptions/${id}-sub`)).json() as Promise<Record<string, number>>;
  return { id, topic, publish, got, subscribe, stats, seq: (prefix = '') => got.filter((g) => g.data.startsWith(prefix)).map((g) => g.data) };
}

const grpcCode = (code: number) => (e: unknown) => (e as { code?: number }).code === code;

describe("convoy's Pub/Sub emulator through @google-cloud/pubsub", () => {
  test('topics and subscriptions: create, get, exists, list, delete; the errors the service gives', async () => {
    const [topic] = await client.createTopic('admin-t');
    await assert.rejects(client.createTopic('admin-t'), grpcCode(6), 'ALREADY_EXISTS');
    assert.equal((await topic.exists())[0], true);
    await client.createTopic('admin-dl');
    const [sub] = await topic.createSubscription('admin-s', {
      enableMessageOrdering: true,
      ackDeadlineSeconds: 20,
      deadLetterPolicy: { deadLetterTopic: 'projects/p/topics/admin-dl', maxDeliveryAttempts: 7 },
    });
    const [meta] = await sub.getMetadata();
    assert.equal(meta.enableMessageOrdering, true);
    assert.equal(meta.ackDeadlineSeconds, 20);
    assert.equal(meta.deadLetterPolicy?.maxDeliveryAttempts, 7);
    assert.equal(meta.topic, 'projects/p/topics/admin-t');
    assert.ok((await client.getSubscriptions())[0].some((s) => s.name === 'projects/p/subscriptions/admin-s'));
    await assert.rejects(client.topic('nope').createSubscription('x'), grpcCode(5), 'NOT_FOUND: no such topic');
    await assert.rejects(topic.createSubscription('x', { deadLetterPolicy: { deadLetterTopic: 'projects/p/topics/admin-dl', maxDeliveryAttempts: 4 } }), grpcCode(3), 'INVALID_ARGUMENT: attempts below 5');
    await assert.rejects(topic.createSubscription('x', { enableExactlyOnceDelivery: true }), grpcCode(12), 'UNIMPLEMENTED: exactly-once');
    await assert.rejects(client.topic('nope').publishMessage({ data: Buffer.from('x') }), grpcCode(5));
    await sub.delete();
    assert.equal((await sub.exists())[0], false);
    await topic.delete();
    assert.equal((await topic.exists())[0], false);
  });

  test('ordering: several messages of a key outstanding at once, in order, as many as flow control allows', async () => {
    const s = await setup({ enableMessageOrdering: true });
    await s.publish('k', [1, 2, 3, 4, 5, 6]);
    await s.publish('j', [1, 2]);
    const held: Got[] = [];
    s.subscribe((g) => held.push(g), { maxMessages: 4 });
    await waitFor(() => held.length === 4, 5_000, '4 delivered');
    await sleep(200);
    assert.equal(held.length, 4, 'no more than the stream\'s max outstanding messages');
    assert.deepEqual(s.seq('k'), ['k1', 'k2', 'k3', 'k4'].slice(0, s.seq('k').length), 'k in order');
    assert.ok(s.seq('k').length >= 2, `at least two of k outstanding at once (${s.seq('k')})`);
    for (const g of held.splice(0)) g.msg.ack();
    await waitFor(() => s.got.length === 8, 5_000, 'the rest after the acks');
    assert.deepEqual(s.seq('k'), ['k1', 'k2', 'k3', 'k4', 'k5', 'k6']);
    assert.deepEqual(s.seq('j'), ['j1', 'j2']);
  });

  test(`the ${OUTSTANDING_PER_KEY_LABEL} label: one outstanding message per key, as pstest does`, async () => {
    const s = await setup({ enableMessageOrdering: true, labels: { [OUTSTANDING_PER_KEY_LABEL]: '1' } });
    await s.publish('k', [1, 2, 3]);
    const held: Got[] = [];
    s.subscribe((g) => held.push(g));
    await waitFor(() => held.length === 1, 5_000, 'k1');
    await sleep(200);
    assert.deepEqual(s.seq(), ['k1'], 'k2 waits for k1');
    held[0]!.msg.ack();
    await waitFor(() => held.length === 2, 5_000, 'k2 after k1 is acked');
  });

  test('the cascade on a nack: the key\'s later delivered messages come again, acked or not, in order; other keys are not touched', async () => {
    const s = await setup({ enableMessageOrdering: true });
    await s.publish('k', [1, 2, 3, 4, 5]);
    await s.publish('j', [1, 2]);
    let nacked = false;
    s.subscribe((g) => {
      if (g.data === 'k3' && !nacked) {
        nacked = true;
        g.msg.nack();
      } else g.msg.ack();
    });
    await waitFor(() => s.seq('k').length === 8, 5_000, 'k3, k4, k5 again');
    await sleep(200);
    assert.deepEqual(s.seq('k'), ['k1', 'k2', 'k3', 'k4', 'k5', 'k3', 'k4', 'k5']);
    assert.deepEqual(s.seq('j'), ['j1', 'j2'], 'j is not redelivered');
    assert.equal((await s.stats()).cascaded, 2);
  });

  test('the cascade on an expired deadline: a held message comes back with the key\'s later, acked ones', async () => {
    const s = await setup({ enableMessageOrdering: true, ackDeadlineSeconds: 1 });
    await s.publish('k', [1, 2, 3]);
    let held = false;
    s.subscribe(
      (g) => {
        if (g.data === 'k2' && !held) held = true; // never settled: the client stops extending after 1 s
        else g.msg.ack();
      },
      { deadline: 1, maxExtension: 1 },
    );
    await waitFor(() => s.seq('k').length === 5, 8_000, 'k2 and k3 again');
    assert.deepEqual(s.seq('k'), ['k1', 'k2', 'k3', 'k2', 'k3']);
    const [first, again] = s.got.filter((g) => g.data === 'k2');
    assert.ok(again!.at - first!.at >= 1_000, `after the deadline (${again!.at - first!.at} ms)`);
  });

  test('dead-letter policy with ordering: deliveryAttempt counts to maxDeliveryAttempts, then the message goes to the dead-letter topic and its key moves on (a gap)', async () => {
    await client.createTopic('dl-topic');
    const [dlSub] = await client.topic('dl-topic').createSubscription('dl-topic-sub');
    const s = await setup({ enableMessageOrdering: true, deadLetterPolicy: { deadLetterTopic: 'projects/p/topics/dl-topic', maxDeliveryAttempts: 5 } });
    await s.publish('k', [1, 2, 3]);
    s.subscribe((g) => (g.data === 'k2' ? g.msg.nack() : g.msg.ack()));
    await waitFor(() => s.got.filter((g) => g.data === 'k3' && g.msg.ackId).length >= 1 && s.got.filter((g) => g.data === 'k2').length === 5, 8_000, 'k2 five times');
    await sleep(300);
    assert.deepEqual(s.got.filter((g) => g.data === 'k2').map((g) => g.attempt), [1, 2, 3, 4, 5]);
    assert.equal(s.seq('k').at(-1), 'k3', 'k3 last: the key moved on without k2');
    const dead: Message[] = [];
    dlSub.on('message', (m: Message) => {
      dead.push(m);
      m.ack();
    });
    closers.push(() => dlSub.close());
    await waitFor(() => dead.length === 1, 5_000, 'k2 in the dead-letter topic');
    assert.equal(dead[0]!.data.toString(), 'k2');
    assert.equal(dead[0]!.orderingKey, 'k');
    assert.equal(dead[0]!.attributes.CloudPubSubDeadLetterSourceDeliveryCount, '5');
    assert.equal((await s.stats()).deadLettered, 1);
  });

  test('retry policy: a nacked message comes back after minimumBackoff, doubled per attempt up to maximumBackoff', async () => {
    const s = await setup({ retryPolicy: { minimumBackoff: { seconds: 0, nanos: 200e6 }, maximumBackoff: { seconds: 0, nanos: 300e6 } } });
    await s.publish('', ['m']);
    s.subscribe((g) => (s.got.length < 3 ? g.msg.nack() : g.msg.ack()));
    await waitFor(() => s.got.length === 3, 5_000, 'three deliveries');
    const gaps = [s.got[1]!.at - s.got[0]!.at, s.got[2]!.at - s.got[1]!.at];
    assert.ok(gaps[0]! >= 180 && gaps[0]! < 290, `first backoff ~200 ms (${gaps[0]} ms)`);
    assert.ok(gaps[1]! >= 280, `second backoff capped at 300 ms (${gaps[1]} ms)`);
  });

  test("through convoy's adapter: a nack mid-key brings the key's acked later messages back (duplicates and regressions), per-key order kept", async () => {
    const settings: PubsubSettings = resolveSettings({ kind: 'pubsub', emulator: 'convoy', messageOrdering: true });
    const endpoint = { projectId: 'p', emulatorHost: emu.emulatorHost, adminHost: emu.emulatorHost, controlUrl: `http://127.0.0.1:${emu.controlPort}` };
    const r = await BrokerRun.open<PubsubSettings, PubsubAdmin>(pubsub, endpoint, settings, 'adapter');
    closers.push(() => r.close());
    let nacked = false;
    await r.consumer('c1', (h) => {
      if (h.seq === 2 && !nacked) {
        nacked = true;
        return 'requeue';
      }
      return 'ack';
    });
    const p = await r.producer();
    await r.sendAll(p, ['k'], 4);
    await waitFor(() => r.acked() === 4 && r.of('k').length >= 6, 8_000, 'all acked, k#2.. again');
    await sleep(200);
    const seqs = r.of('k').map((h) => h.seq);
    assert.deepEqual(seqs.slice(0, 4), [1, 2, 3, 4], 'the first pass: k#3 and k#4 handled after k#2 was nacked');
    assert.deepEqual(seqs.slice(4), [2, 3, 4], 'then k#2, k#3, k#4 again, in order');
    // The control endpoint's injected publish failure works here as on pstest-server.
    await r.admin.failNextPublish({ key: 'k' });
    await assert.rejects(p.send({ key: 'k', payload: Buffer.from('x') }), /FAILED_PRECONDITION/);
  });
});

describe("convoy's Pub/Sub emulator: the adapter's publish-failure tests, shared with pstest (ordering.test.ts)", () => {
  publishFailureTests(adapterRuns.run);
});
