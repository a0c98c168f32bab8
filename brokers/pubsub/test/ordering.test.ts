/**
 * Pub/Sub behaviours scenarios rely on, shown on pstest (convoy's pstest-server) through
 * @google-cloud/pubsub and convoy's adapter (brokers/pubsub). One pstest-server for the file;
 * each test has its own topic and subscription.
 */
// @needs pubsub
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PubSub } from '@google-cloud/pubsub';
import { SendFailure } from '../../../harness/broker/contract.ts';
import { ToxiproxyApi } from '../../../harness/net/toxiproxy.ts';
import { PROXY_NAME } from '../local.ts';
import { Run, payload, sleep, startPstest, waitFor, brokerPerFile } from './helpers.ts';
import { publishFailureTests } from './publish-failures.ts';

const fx = brokerPerFile(startPstest, Run.create);
const { run } = fx;

const jitter = (min: number, max: number) => sleep(min + Math.random() * (max - min));

describe('pubsub on pstest', () => {
  test('deploy: the emulator is named, the clients link is a Toxiproxy proxy, admin bypasses it', () => {
    assert.equal(fx.dep.emulator?.name, 'pstest');
    assert.match(fx.dep.emulator!.version, /^v2\./);
    assert.equal(fx.dep.versions.pstest, fx.dep.emulator!.version);
    assert.deepEqual(fx.dep.links.map((l) => [l.name, l.proxies]), [['clients', [PROXY_NAME]]]);
    const ep = fx.dep.endpoint as { emulatorHost: string; adminHost: string };
    assert.notEqual(ep.emulatorHost, ep.adminHost);
    const mem = fx.dep.memory();
    assert.ok(mem && mem.rssBytes > 0);
    process.stderr.write(`  pstest: start ${fx.dep.startupMs} ms, RSS ${(mem!.rssBytes / 2 ** 20).toFixed(0)} MiB\n`);
  });

  test('ordering on: each key in publish order and one message at a time, across two consumers', async () => {
    const r = await run({ messageOrdering: true }, 'ordered');
    const handler = async () => {
      await jitter(2, 12);
      return 'ack' as const;
    };
    // early: the adapter does not hold back a key's next message; only the emulator does.
    await Promise.all([r.consumer('c1', handler, { early: true }), r.consumer('c2', handler, { early: true })]);
    const keys = ['k0', 'k1', 'k2', 'k3'];
    await r.sendAll(await r.producer(), keys, 12);
    await waitFor(() => r.acked() === 48, 30_000, 'all 48 acked');
    assert.deepEqual(r.reorderedKeys(), []);
    assert.deepEqual(r.overlaps(), [], 'never two messages of one key in flight');
    for (const h of r.handled) assert.equal(h.lane, h.key, 'lane = ordering key');
    assert.ok(keys.some((k) => new Set(r.of(k).map((h) => h.consumer)).size === 2), 'keys moved between consumers');
  });

  test('ordering off: order is lost under concurrency', async () => {
    const r = await run({ messageOrdering: false }, 'unordered');
    const handler = async () => {
      await jitter(2, 12);
      return 'ack' as const;
    };
    await Promise.all([r.consumer('c1', handler, { early: true }), r.consumer('c2', handler, { early: true })]);
    await r.sendAll(await r.producer(), ['k0', 'k1', 'k2', 'k3'], 12);
    await waitFor(() => r.acked() === 48, 30_000, 'all 48 acked');
    assert.ok(r.reorderedKeys().length > 0, 'some key handled out of publish order');
    assert.ok(r.overlaps().length > 0, 'messages of one key handled at the same time');
    assert.equal(new Set(r.handled.map((h) => h.lane)).size, 1, 'without ordering the subscription is one lane');
  });

  test('nack redelivers at once; with ordering the key waits for it (deliveryAttempt counts)', async () => {
    const r = await run({ messageOrdering: true, deadLetter: { enabled: true, maxDeliveryAttempts: 5 } }, 'nack');
    let nacked = false;
    await r.consumer('c1', (h) => {
      if (h.seq === 1 && !nacked) {
        nacked = true;
        return 'requeue';
      }
      return 'ack';
    });
    await r.sendAll(await r.producer(), ['k'], 3);
    await waitFor(() => r.acked() === 3, 10_000, '3 acked');
    assert.deepEqual(r.of('k').map((h) => [h.seq, h.deliveryCount]), [
      [1, 1],
      [1, 2],
      [2, 1],
      [3, 1],
    ]);
  });

  test('release: the deadline expires after the client stops extending it, then the message is redelivered', async () => {
    const r = await run({ messageOrdering: true, ackDeadlineSeconds: 1, subscriber: { maxExtensionSeconds: 1 } }, 'release');
    let released = false;
    await r.consumer('c1', (h) => {
      if (h.seq === 1 && !released) {
        released = true;
        return 'release';
      }
      return 'ack';
    });
    await r.sendAll(await r.producer(), ['k'], 2);
    await waitFor(() => r.acked() === 2, 15_000, '2 acked');
    const k = r.of('k');
    assert.deepEqual(k.map((h) => h.seq), [1, 1, 2], 'redelivered, and k#2 only after it');
    const gap = k[1]!.start - k[0]!.start;
    assert.ok(gap >= 1_000, `redelivered after the extension limit and the deadline (${gap} ms)`);
  });

  test('a handler slower than the deadline (extension capped): another consumer gets the message meanwhile', async () => {
    const r = await run({ messageOrdering: true, ackDeadlineSeconds: 1, subscriber: { maxExtensionSeconds: 1 } }, 'expire');
    let slow = false;
    const handler = async (h: { seq: number }) => {
      if (h.seq === 1 && !slow) {
        slow = true;
        await sleep(4_000);
      }
      return 'ack' as const;
    };
    await Promise.all([r.consumer('c1', handler, { maxInFlight: 1 }), r.consumer('c2', handler, { maxInFlight: 1 })]);
    await r.sendAll(await r.producer(), ['k'], 2);
    await waitFor(() => r.of('k').filter((h) => h.seq === 1).length >= 2, 10_000, 'k#1 redelivered');
    await waitFor(() => r.of('k').every((h) => h.end !== undefined) && r.acked() === 2, 10_000, 'all done');
    const ones = r.of('k').filter((h) => h.seq === 1);
    assert.notEqual(ones[0]!.consumer, ones[1]!.consumer, 'redelivered to the other consumer');
    assert.ok(ones[1]!.start < ones[0]!.end!, 'while the first handler still worked (overlap, duplicate)');
  });

  publishFailureTests(run);

  test('traffic goes through Toxiproxy: a disabled clients link stops publishes and deliveries; enabling it resumes', async () => {
    const r = await run({ messageOrdering: true, publisher: { timeoutMs: 2_000 } }, 'toxi');
    const p = await r.producer();
    await r.consumer('c1');
    await p.send({ key: 'k', payload: payload('k', 1) });
    await waitFor(() => r.acked() === 1, 10_000, 'k#1 acked');
    const api = new ToxiproxyApi(fx.dep.links[0]!.toxiproxyUrl);
    await api.setEnabled(PROXY_NAME, false);
    try {
      await assert.rejects(p.send({ key: 'k', payload: payload('k', 2) }), (e: unknown) => e instanceof SendFailure && !e.definite);
      // Publish k#3 straight to pstest (the admin's port): the consumer cannot get it.
      const direct = new PubSub({ projectId: r.settings.projectId, apiEndpoint: (fx.dep.endpoint as { adminHost: string }).adminHost, emulatorMode: true, universeDomain: 'googleapis.com' });
      await direct.topic(r.admin.names.topic, { messageOrdering: true }).publishMessage({ data: payload('k', 3), orderingKey: 'k' });
      await direct.close();
      await sleep(2_000);
      assert.equal(r.acked(), 1, 'nothing delivered while the link is down');
    } finally {
      await api.setEnabled(PROXY_NAME, true);
    }
    // The subscriber reopens its stream on its own schedule: each failed attempt while the link was
    // down doubled its wait (@google-cloud/pubsub's message stream: 100 ms, doubling, at most 60 s),
    // so after a few seconds down the next attempt may come tens of seconds after the link is back.
    await waitFor(() => r.of('k').some((h) => h.seq === 3 && h.settled === 'ack'), 75_000, 'k#3 delivered after the link is back (within the stream retry\'s 60 s cap)');
  });
});
