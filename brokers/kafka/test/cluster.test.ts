/**
 * A 3-node KRaft cluster on this host (RF 3, min.insync.replicas 2): it starts, each node is
 * reachable through its own proxy, and a node killed with SIGKILL and started again loses no
 * message acked with acks=all, while the ISR shows the kill (the evidence faults record).
 */
// @needs own kafka
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment } from '../../../harness/broker/contract.ts';
import { describeCluster } from '../probe.ts';
import { parseEndpoint } from '../endpoint.ts';
import { peakRssKb } from '../local.ts';
import { Run, payload, runNames, settings, sleep, startKafka, waitFor } from './helpers.ts';

let dep: Deployment;
let stopKafka: () => Promise<void> = async () => {};

before(async () => {
  const started = await startKafka({ nodes: 3 });
  dep = started.dep;
  stopKafka = started.stop;
  process.stderr.write(`  kafka 3-node cluster up in ${started.ms} ms\n`);
});

after(async () => {
  const rss = dep?.nodes.map((n) => Math.round((peakRssKb(n.pid()) ?? 0) / 1024));
  if (rss) process.stderr.write(`  kafka node peak RSS ${rss.join(', ')} MiB\n`);
  await stopKafka();
});

test('three nodes, each behind its own proxy, one link per node', async () => {
  assert.deepEqual(
    dep.nodes.map((n) => n.id),
    ['node-1', 'node-2', 'node-3'],
  );
  assert.deepEqual(
    dep.links.map((l) => l.name),
    ['clients', 'node-1', 'node-2', 'node-3'],
  );
  const view = await describeCluster(parseEndpoint(dep.endpoint));
  assert.deepEqual(
    view.brokers.map((b) => `${b.host}:${b.port}`).sort(),
    [...parseEndpoint(dep.endpoint).bootstrapServers].sort(),
  );
  assert.ok(dep.nodes.every((n) => typeof n.pid() === 'number'));
});

test('SIGKILL a node and restart it: acks=all loses no acked message', async () => {
  const s = settings({
    nodes: 3,
    client: 'confluent',
    topic: { partitions: 3 },
    producer: { acks: 'all', idempotent: true, deliveryTimeoutMs: 60_000 },
  });
  assert.deepEqual(s.topic, { partitions: 3, replicationFactor: 3, minInsyncReplicas: 2, clusterDefaults: true });
  const run = await new Run(dep, s, runNames('kill')).init();
  try {
    const p = await run.producer();
    const acked = new Map<string, { lane: string; offset: number }>();
    let failed = 0;
    let stop = false;
    let seq = 0;
    const sender = (async () => {
      const pending: Promise<void>[] = [];
      while (!stop) {
        const n = ++seq;
        const key = `k${n % 16}`;
        pending.push(
          p.send({ key, payload: payload(key, n) }).then(
            (a) => void acked.set(`${key}/${n}`, { lane: a.lane!, offset: a.offset! }),
            () => void failed++,
          ),
        );
        await sleep(4);
      }
      await Promise.all(pending);
    })();

    await waitFor(() => acked.size > 200, 20_000, 'acked messages before the kill');
    const before = await run.admin.describeReplication();
    const lanes = before.lanes as Record<string, { leader: number; isr: number[] }>;
    // Kill the leader of p0, so the kill forces a leader change under load.
    const victim = dep.nodes.find((n) => n.id === `node-${lanes.p0!.leader}`)!;
    const pid = victim.pid();
    await victim.stop('SIGKILL');
    assert.equal(victim.pid(), undefined, 'the node process is gone');
    let shrunk: Record<string, unknown> = {};
    await waitFor(
      async () => {
        shrunk = await run.admin.describeReplication().catch(() => ({}));
        return ((shrunk.underReplicated as string[] | undefined) ?? []).length === 3;
      },
      30_000,
      'the ISR to shrink on every partition',
    );
    const afterKill = shrunk.lanes as Record<string, { leader: number; isr: number[] }>;
    assert.notEqual(afterKill.p0!.leader, lanes.p0!.leader, 'p0 has a new leader');
    const ackedDuringOutage = acked.size;
    await sleep(1_000);

    await victim.start();
    assert.ok(victim.pid() && victim.pid() !== pid, 'a new process');
    await waitFor(
      async () => (((await run.admin.describeReplication()).underReplicated as string[]) ?? ['x']).length === 0,
      60_000,
      'the restarted node back in every ISR',
    );
    await sleep(500);
    stop = true;
    await sender;
    assert.ok(acked.size > ackedDuringOutage, 'producing went on');

    await run.consumer('c1', { maxInFlight: 100 });
    await waitFor(() => run.received.length >= acked.size, 60_000, `${acked.size} acked messages consumed`);
    const got = new Set(run.received.map((r) => `${r.key}/${r.seq}`));
    const lost = [...acked.keys()].filter((k) => !got.has(k));
    assert.deepEqual(lost, [], 'every acked message is in the log');
    for (const r of run.received) {
      const a = acked.get(`${r.key}/${r.seq}`);
      if (a) assert.deepEqual({ lane: r.lane, offset: r.offset }, a, `${r.key}/${r.seq} at its acked position`);
    }
    process.stderr.write(`  kill test: ${acked.size} acked, ${failed} failed sends, ${run.received.length} consumed\n`);
  } finally {
    await run.close();
  }
});
