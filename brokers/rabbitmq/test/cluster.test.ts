/**
 * A local 3-node cluster (broker.nodes: 3): it forms at start, each node behind its own proxy;
 * when a quorum queue's leader node is killed (SIGKILL), another member leads, every confirmed
 * message is delivered, in order, and the node comes back into the cluster.
 */
// @needs own rabbitmq
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCleanup } from '../../../harness/runtime/cleanup.ts';
import { deployCluster, runningNodes, type ClusterDeployment } from '../cluster.ts';
import { resolveSettings } from '../settings.ts';
import { Harness, payload, quiet, sleep, waitFor } from './helpers.ts';

let dep: ClusterDeployment;
let startedMs = 0;

before(async () => {
  const t0 = Date.now();
  dep = await deployCluster({ runtime: 'local', workDir: mkdtempSync(join(tmpdir(), 'convoy-rmq-cluster-')), cacheDir: '', log: quiet, reuse: false }, resolveSettings({ kind: 'rabbitmq', nodes: 3 }));
  startedMs = Date.now() - t0;
});

after(async () => {
  await dep?.stop();
  await runCleanup();
});

test('three nodes in one cluster, each behind its own proxy on the clients link', async (t) => {
  t.diagnostic(`cluster formed in ${(startedMs / 1000).toFixed(1)} s`);
  const names = dep.endpoint.nodes as string[];
  assert.equal(names.length, 3);
  assert.deepEqual((await runningNodes(names[0]!)).sort(), [...names].sort());
  assert.deepEqual(dep.links[0]!.proxies, ['rabbitmq-amqp-1', 'rabbitmq-amqp-2', 'rabbitmq-amqp-3']);
  assert.deepEqual(dep.nodes.map((n) => n.id), ['node-1', 'node-2', 'node-3']);
});

test('the quorum queue\'s leader node is killed: another member leads, nothing confirmed is lost or reordered, and the node rejoins', { timeout: 120_000 }, async () => {
  const h = await Harness.create(dep, { topology: 'single-active', queueType: 'quorum', syncMetadata: true }, 'cluster-quorum');
  try {
    // The queue was declared through node 1 (the admin's first node): its leader is there. The
    // clients prefer node 2 (p2, c2), so the kill leaves their connections up.
    const p = await h.producer('p2');
    await h.consumer('c2');
    for (let s = 0; s < 50; s++) await p.send({ key: 'k', payload: payload('k', s) });
    await waitFor(() => h.handled.length >= 50, 15_000, 'the first 50');
    type Evidence = { quorum: { leader?: string; members?: { node: string }[] }[] };
    const names = dep.endpoint.nodes as string[];
    const before = ((await h.admin.describeReplication!()) as Evidence).quorum[0]!;
    assert.equal(before.leader, names[0], `declared through node-1, led there: ${JSON.stringify(before)}`);
    assert.deepEqual(before.members!.map((m) => m.node).sort(), [...names].sort(), 'a member on each node');
    const node1 = dep.nodes[0]!;
    await node1.stop('SIGKILL');
    // A member on node 2 or 3 takes over; a send nacked while there is no leader is sent again.
    for (let s = 50; s < 100; s++) {
      let sent = false;
      let why = '';
      const deadline = Date.now() + 30_000;
      while (!sent && Date.now() < deadline) {
        sent = await p.send({ key: 'k', payload: payload('k', s) }).then(() => true, (e: Error) => ((why = e.message), false));
        if (!sent) await sleep(100);
      }
      assert.ok(sent, `seq ${s} confirmed after the kill (last error: ${why})`);
    }
    await waitFor(() => new Set(h.handled.map((x) => x.seq)).size === 100, 30_000, 'all 100 handled');
    const firsts: number[] = [];
    for (const x of h.handled) if (!firsts.includes(x.seq)) firsts.push(x.seq);
    assert.deepEqual(firsts, [...Array(100).keys()], 'each message first handled in order');
    const after = ((await h.admin.describeReplication!()) as Evidence).quorum[0]!;
    assert.ok(after.leader && after.leader !== names[0], `another member leads: ${JSON.stringify(after)}`);
    await node1.start();
    assert.equal((await runningNodes((dep.endpoint.nodes as string[])[1]!)).length, 3, 'the killed node is back in the cluster');
  } finally {
    await h.close();
  }
});
