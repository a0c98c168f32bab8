/**
 * One real single-node Kafka (KRaft) behind Toxiproxy, every client (kafkajs, librdkafka, and the
 * Java client in a process of its own): produce and consume keyed
 * messages through the proxy, settlement semantics, a cut link really stops traffic, a
 * partition increase reaches admin and producers.
 */
// @needs kafka
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ToxiproxyApi } from '../../../harness/net/toxiproxy.ts';
import type { Delivery, Deployment, SendAck } from '../../../harness/broker/contract.ts';
import { SendFailure } from '../../../harness/broker/contract.ts';
import { describeCluster } from '../probe.ts';
import { parseEndpoint } from '../endpoint.ts';
import { peakRssKb } from '../local.ts';
import { PRODUCER_PERFORMANCE, provision, toolCommand } from '../provision.ts';
import { execFileSync } from 'node:child_process';
import { Run, parse, payload, runNames, sendKeyed, settings, sleep, startKafka, waitFor } from './helpers.ts';
import { KAFKA_CLIENTS, clientHas } from '../client-defaults.ts';

let dep: Deployment;
let stopKafka: () => Promise<void> = async () => {};

before(async () => {
  const started = await startKafka({}, { reuse: true });
  dep = started.dep;
  stopKafka = started.stop;
  process.stderr.write(`  kafka single node up in ${started.ms} ms\n`);
});

after(async () => {
  const pid = dep?.nodes[0]?.pid();
  if (pid) process.stderr.write(`  kafka node peak RSS ${Math.round((peakRssKb(pid) ?? 0) / 1024)} MiB\n`);
  await stopKafka();
});

test('every client address is a Toxiproxy proxy: bootstrap and advertised listeners', async () => {
  const clients = dep.links.find((l) => l.name === 'clients')!;
  assert.deepEqual(
    dep.links.map((l) => l.name),
    ['clients', 'node-1'],
  );
  const api = new ToxiproxyApi(clients.toxiproxyUrl);
  const listens = await Promise.all(clients.proxies.map(async (p) => (await api.client.get(p)).listen));
  const endpoint = parseEndpoint(dep.endpoint);
  assert.deepEqual(endpoint.bootstrapServers, listens);
  const view = await describeCluster(endpoint);
  assert.deepEqual(
    view.brokers.map((b) => `${b.host}:${b.port}`),
    listens,
    'the broker advertises the proxy, so connections after bootstrap also cross Toxiproxy',
  );
});

for (const client of KAFKA_CLIENTS) {
  describe(`client ${client}`, () => {
    test('keyed messages through Toxiproxy: per-partition order, offsets and lanes as acked', async () => {
      const s = settings({ client, consumer: { autoCommit: false } });
      const run = await new Run(dep, s, runNames(`order-${client}`)).init();
      try {
        const c1 = await run.consumer('c1');
        const c2 = await run.consumer('c2');
        await Promise.all([c1.ready(30_000), c2.ready(30_000)]);
        // Both members hold partitions in one stable generation before anything is sent.
        await waitFor(
          async () => {
            const g = await run.admin.describeConsumerGroup();
            const members = g.members as { lanes: string[] }[];
            return g.state === 'Stable' && members.length === 2 && members.every((m) => m.lanes.length > 0);
          },
          30_000,
          'a stable group of two members',
        );
        await sleep(500);
        const p = await run.producer();
        const keys = Array.from({ length: 12 }, (_, i) => `key-${i}`);
        const acks = await sendKeyed(p, keys, 25);
        const total = keys.length * 25;
        await waitFor(() => run.received.length >= total, 30_000, `${total} deliveries`);
        await sleep(300);
        assert.equal(run.received.length, total, 'no duplicates in a stable group');

        const byLane = new Map<string, typeof run.received>();
        for (const r of run.received) byLane.set(r.lane, [...(byLane.get(r.lane) ?? []), r]);
        for (const [lane, list] of byLane) {
          assert.ok(new Set(list.map((r) => r.consumer)).size === 1, `${lane} consumed by one member`);
          for (let i = 1; i < list.length; i++) assert.ok(list[i]!.offset > list[i - 1]!.offset, `${lane}: offsets increase`);
        }
        for (const key of keys) {
          const got = run.received.filter((r) => r.key === key);
          assert.deepEqual(
            got.map((r) => r.seq),
            Array.from({ length: 25 }, (_, i) => i + 1),
            `${key}: delivered in send order`,
          );
          const sent = acks.get(key)!;
          assert.equal(new Set(sent.map((a) => a.lane)).size, 1, `${key} lives on one partition`);
          got.forEach((r, i) => {
            assert.equal(r.lane, sent[i]!.lane);
            assert.equal(r.offset, sent[i]!.offset, `${key}#${i + 1}: delivered at the acked offset`);
          });
        }
        assert.ok(byLane.size >= 2, 'keys spread over partitions');
        // Commits (autoCommit off: after each settlement) reached the broker.
        await waitFor(
          async () => {
            const committed = (await run.admin.describeConsumerGroup()).committed as Record<string, number>;
            return [...byLane].every(([lane, list]) => committed[lane] === list[list.length - 1]!.offset + 1);
          },
          10_000,
          'committed offsets at the end of each partition',
        );
        const rebalances = run.groupEvents.filter((e) => e.event.phase === 'assigned');
        assert.ok(rebalances.length >= 2);
        assert.ok(rebalances.every((e) => typeof e.event.generation === 'number'), 'assignments carry the group generation');
      } finally {
        await run.close();
      }
    });

    test('settlement: requeue redelivers; only the settled prefix is committed', async () => {
      const s = settings({ client, topic: { partitions: 1 }, consumer: { autoCommit: false } });
      const run = await new Run(dep, s, runNames(`settle-${client}`)).init();
      try {
        const p = await run.producer();
        for (let seq = 1; seq <= 6; seq++) await p.send({ key: 'k', payload: payload('k', seq) });
        const held: Delivery[] = [];
        let requeued = false;
        await run.consumer('c1', {
          maxInFlight: 10,
          decide: (d, r) => {
            if (r.seq === 2 && !requeued) {
              requeued = true;
              return 'requeue';
            }
            if (r.seq === 4 && held.length === 0) {
              // Leave seq 4 unsettled; 5 and 6 get acked after it.
              held.push(d);
              return 'hold';
            }
            return 'ack';
          },
        });
        await waitFor(() => run.received.some((r) => r.seq === 6), 20_000, 'delivery of the last message');
        const seq2 = run.received.filter((r) => r.seq === 2);
        assert.equal(seq2.length, 2, 'requeued message delivered twice');
        assert.equal(seq2[1]!.deliveryCount, 2);
        assert.equal(seq2[1]!.offset, seq2[0]!.offset);
        const seq1 = run.received.find((r) => r.seq === 1)!;
        assert.equal(run.received.filter((r) => r.seq === 1).length, 1, 'messages before the requeued one are not redelivered');
        await sleep(1_500);
        const offset4 = run.received.find((r) => r.seq === 4)!.offset;
        let committed = (await run.admin.describeConsumerGroup()).committed as Record<string, number>;
        assert.equal(committed.p0, offset4, 'seq 5 and 6 are acked but 4 is not: the commit stops at 4');
        assert.ok(offset4 > seq1.offset);
        await held[0]!.settle('ack');
        await waitFor(
          async () => {
            committed = (await run.admin.describeConsumerGroup()).committed as Record<string, number>;
            return committed.p0 === offset4 + 3;
          },
          10_000,
          'commit past 6 once 4 is settled',
        );
      } finally {
        await run.close();
      }
    });

    test('disabling the clients link stops traffic; enabling it resumes', async () => {
      const over = clientHas(client, 'producer.deliveryTimeoutMs')
        ? { client, producer: { requestTimeoutMs: 2_000, deliveryTimeoutMs: 4_000, retries: 1 } }
        : { client, producer: { requestTimeoutMs: 2_000, retries: 1 } };
      const s = settings(over);
      const run = await new Run(dep, s, runNames(`link-${client}`)).init();
      const link = dep.links.find((l) => l.name === 'clients')!;
      const api = new ToxiproxyApi(link.toxiproxyUrl);
      try {
        const c = await run.consumer('c1');
        await c.ready(30_000);
        const p = await run.producer();
        await p.send({ key: 'a', payload: payload('a', 1) });
        await waitFor(() => run.received.length === 1, 15_000, 'first delivery');

        for (const name of link.proxies) await api.setEnabled(name, false);
        assert.deepEqual(
          (await Promise.all(link.proxies.map((n) => api.describe(n)))).map((x) => x.enabled),
          link.proxies.map(() => false),
        );
        const t = Date.now();
        const outcome = await p.send({ key: 'a', payload: payload('a', 2) }).then(
          (ack: SendAck) => ({ ok: true as const, ack }),
          (err: unknown) => ({ ok: false as const, err }),
        );
        assert.equal(outcome.ok, false, 'a send cannot succeed while the link is down');
        if (!outcome.ok) {
          assert.ok(outcome.err instanceof SendFailure);
          assert.equal(outcome.err.definite, false, 'a timeout or a cut connection is never definite');
        }
        await sleep(Math.max(0, 2_000 - (Date.now() - t)));
        assert.equal(run.received.length, 1, 'nothing delivered while the link is down');

        for (const name of link.proxies) await api.setEnabled(name, true);
        const deadline = Date.now() + 30_000;
        let resumed: SendAck | undefined;
        while (!resumed && Date.now() < deadline) {
          resumed = await p.send({ key: 'a', payload: payload('a', 3) }).catch(() => undefined);
        }
        assert.ok(resumed, 'sends succeed again after the link is back');
        await waitFor(() => run.received.some((r) => r.seq === 3), 30_000, 'deliveries resume');
      } finally {
        for (const name of link.proxies) await api.setEnabled(name, true).catch(() => {});
        await run.close();
      }
    });

    // @platformatic/kafka heartbeats on a timer whatever the handler does: nothing to leave
    // the group for (its stall, past the session timeout, is the nightly kafka-stall-session-platformatic).
    if (client !== 'platformatic') test(
      client !== 'kafkajs'
        ? `a handler blocked past maxPollIntervalMs: the ${client} client leaves the group, the message is delivered again`
        : 'a handler blocked past sessionTimeoutMs: kafkajs stops heartbeating, the member is evicted, the message is delivered again',
      async () => {
        const limitMs = 7_000;
        const consumer =
          client !== 'kafkajs'
            ? { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 1_000, maxPollIntervalMs: limitMs, autoCommit: false }
            : { sessionTimeoutMs: limitMs, heartbeatIntervalMs: 1_000, autoCommit: false };
        const run = await new Run(dep, settings({ client, topic: { partitions: 1 }, consumer }), runNames(`stall-${client}`)).init();
        try {
          let stalledAt = 0;
          let leftAfter = 0;
          const c = await run.consumer('c1', {
            decide: async (_d, r) => {
              if (r.seq !== 2 || stalledAt) return 'ack' as const;
              stalledAt = Date.now();
              // Block the handler until the broker shows the member gone (bounded).
              await waitFor(
                async () => ((await run.admin.describeConsumerGroup()).members as unknown[]).length === 0,
                limitMs + 12_000,
                'the member to leave the group',
              );
              leftAfter = Date.now() - stalledAt;
              return 'ack' as const;
            },
          });
          await c.ready(30_000);
          const p = await run.producer();
          for (let seq = 1; seq <= 3; seq++) await p.send({ key: 'k', payload: payload('k', seq) });
          await waitFor(() => run.received.filter((r) => r.seq === 2).length === 2 && run.received.some((r) => r.seq === 3), 40_000, 'redelivery after rejoining');
          assert.ok(leftAfter >= limitMs - 1_500, `left the group after ${leftAfter} ms, not before ~${limitMs} ms`);
          const events = run.groupEvents.map((e) => e.event);
          assert.deepEqual(
            events.map((e) => e.phase),
            ['assigned', 'revoked', 'assigned'],
          );
          assert.ok(events[2]!.generation! > events[0]!.generation!, 'a new generation');
          const second = run.received.filter((r) => r.seq === 2)[1]!;
          assert.equal(second.deliveryCount, 2, 'the same consumer counts the redelivery');
        } finally {
          await run.close();
        }
      },
    );

    test('addPartitions 3 -> 4: admin sees it, the producer after refreshMetadata (java: after its metadata max age)', async () => {
      // The Java producer cannot be asked for fresh metadata; it refreshes every metadataMaxAgeMs.
      const s = settings(client === 'java' ? { client, producer: { metadataMaxAgeMs: 500 } } : { client });
      const run = await new Run(dep, s, runNames(`grow-${client}`)).init();
      try {
        const p = await run.producer();
        const keys = Array.from({ length: 40 }, (_, i) => `grow-${i}`);
        const before = await Promise.all(keys.map((k) => p.send({ key: k, payload: payload(k, 1) })));
        assert.deepEqual([...new Set(before.map((a) => a.lane))].sort(), ['p0', 'p1', 'p2']);
        assert.deepEqual(await run.admin.lanes(), ['p0', 'p1', 'p2']);
        await run.admin.addPartitions(4);
        assert.deepEqual(await run.admin.lanes(), ['p0', 'p1', 'p2', 'p3']);
        if (client === 'java') {
          assert.equal(p.refreshMetadata, undefined, 'the Java client does not claim a refresh it cannot do');
          await sleep(1_500);
        } else await p.refreshMetadata!();
        const afterAcks = await Promise.all(keys.map((k) => p.send({ key: k, payload: payload(k, 2) })));
        const moved = keys.filter((_, i) => afterAcks[i]!.lane !== before[i]!.lane);
        assert.ok(afterAcks.some((a) => a.lane === 'p3'), 'keys hash onto the new partition');
        assert.ok(moved.length > 0 && moved.length < keys.length, `some keys moved (${moved.length}/${keys.length})`);
        const replication = await run.admin.describeReplication();
        assert.deepEqual(Object.keys(replication.lanes as object).sort(), ['p0', 'p1', 'p2', 'p3']);
      } finally {
        await run.close();
      }
    });
  });
}

test('kafka-tools ProducerPerformance (the benchmark anchor) runs through the proxy', async () => {
  const run = await new Run(dep, settings(), runNames('perf')).init();
  try {
    const inst = provision(dep.versions.kafka, { tools: true });
    const bootstrap = parseEndpoint(dep.endpoint).bootstrapServers.join(',');
    const cmd = toolCommand(inst, PRODUCER_PERFORMANCE, [
      '--topic', run.names.prefix, '--num-records', '3000', '--record-size', '100', '--throughput', '-1',
      '--producer-props', `bootstrap.servers=${bootstrap}`, 'acks=all',
    ]);
    const out = execFileSync(cmd.command, cmd.args, { encoding: 'utf8', timeout: 60_000 });
    assert.match(out, /^3000 records sent, [\d.]+ records\/sec/m, out);
    const offsets = await run.admin.client.fetchTopicOffsets(run.names.prefix);
    assert.equal(offsets.reduce((n, o) => n + Number(o.high), 0), 3000);
  } finally {
    await run.close();
  }
});

test('the producer partitioners agree with Java for murmur2 and differ with crc32', async () => {
  const names = runNames('partitioner');
  const base = new Run(dep, settings({ client: 'confluent', topic: { partitions: 12 } }), names);
  await base.init();
  try {
    const keys = Array.from({ length: 30 }, (_, i) => `order-${i}`);
    const lanes = async (over: Record<string, unknown>) => {
      const p = await base.producer(`p-${JSON.stringify(over).length}-${Math.random()}`, settings({ topic: { partitions: 12 }, ...over }));
      return Promise.all(keys.map(async (k) => (await p.send({ key: k, payload: payload(k, 1) })).lane));
    };
    const kafkajs = await lanes({ client: 'kafkajs' });
    const murmur = await lanes({ client: 'confluent', producer: { partitioner: 'murmur2' } });
    const crc = await lanes({ client: 'confluent', producer: { partitioner: 'crc32' } });
    assert.deepEqual(murmur, kafkajs, 'kafkajs DefaultPartitioner and librdkafka murmur2_random place keys alike');
    assert.ok(crc.filter((l, i) => l !== murmur[i]).length >= 10, 'crc32 places many keys elsewhere');
  } finally {
    await base.close();
  }
  void parse;
});

test('remaining: group lag per partition (from the log start when nothing is committed), held deliveries stay counted, 0 when all is committed', async () => {
  const s = settings({ client: 'confluent', topic: { partitions: 3 }, consumer: { autoCommit: false } });
  const run = await new Run(dep, s, runNames('remaining')).init();
  try {
    const p = await run.producer();
    const keys = Array.from({ length: 6 }, (_, i) => `k${i}`);
    const acks = await sendKeyed(p, keys, 5);
    const perLane = new Map<string, SendAck[]>();
    for (const list of acks.values()) for (const a of list) (perLane.get(a.lane!) ?? perLane.set(a.lane!, []).get(a.lane!)!).push(a);
    // No consumer yet: the group has committed nothing; every message is still held.
    const before = await run.admin.remaining();
    assert.deepEqual({ known: before.known, total: before.total }, { known: true, total: 30 });
    assert.deepEqual(before.lanes, { p0: perLane.get('p0')?.length ?? 0, p1: perLane.get('p1')?.length ?? 0, p2: perLane.get('p2')?.length ?? 0 });

    // k0's third message is held unsettled: its partition's commit stops there.
    const heldLane = acks.get('k0')![2]!.lane!;
    const heldOffset = acks.get('k0')![2]!.offset!;
    const held: Delivery[] = [];
    await run.consumer('c1', {
      maxInFlight: 50,
      decide: (d, r) => {
        if (r.key === 'k0' && r.seq === 3 && held.length === 0) {
          held.push(d);
          return 'hold';
        }
        return 'ack';
      },
    });
    await waitFor(() => run.received.length >= 30, 30_000, 'all 30 delivered');
    const laneEnd = Math.max(...perLane.get(heldLane)!.map((a) => a.offset!)) + 1;
    const stuck = laneEnd - heldOffset;
    let r = await run.admin.remaining();
    await waitFor(
      async () => {
        r = await run.admin.remaining();
        return r.total === stuck;
      },
      15_000,
      `lag ${stuck} behind the held delivery`,
    );
    for (const [lane, n] of Object.entries(r.lanes!)) assert.equal(n, lane === heldLane ? stuck : 0, `lag of ${lane}`);

    await held[0]!.settle('ack');
    await waitFor(async () => (await run.admin.remaining()).total === 0, 15_000, 'no lag once the held delivery is settled');
  } finally {
    await run.close();
  }
});
