/**
 * The request fault on a real Kafka, through the request proxy on the client links (the suite's
 * held broker, with the proxy put in front of it for this file and taken out after): each action
 * reaches the client, as the Java producer's own retried errors (errorsSeen) and its acks show,
 * with the proxy's evidence of every request it acted on; a fault that never acts says so; the
 * proxy is taken out again at the end (the Toxiproxy proxies point at the broker).
 */
// @needs kafka
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment, ProducerClient, SendAck } from '../../harness/broker/contract.ts';
import type { FaultContext } from '../../harness/faults/contract.ts';
import type { FaultSpec } from '../../harness/spec/types.ts';
import { ToxiproxyApi } from '../../harness/net/toxiproxy.ts';
import request from '../../harness/faults/request.ts';
import { insertRequestProxy } from '../../brokers/kafka/request-proxy.ts';
import { parseEndpoint } from '../../brokers/kafka/endpoint.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { payload, Run, runNames, sendKeyed, settings, startKafka } from '../../brokers/kafka/test/helpers.ts';

const s = settings({ client: 'java', requestProxy: true, topic: { partitions: 1 }, producer: { retryBackoffMs: 20, lingerMs: 0 } });
let dep: Deployment;
let stopKafka: () => Promise<void> = async () => {};

before(async () => {
  const started = await startKafka({ requestProxy: true }, { reuse: true });
  dep = started.dep;
  stopKafka = started.stop;
});

after(async () => {
  const clients = dep?.links.find((l) => l.name === 'clients');
  await stopKafka();
  // The proxy is out again: every client proxy points at its node, not at the request proxy.
  if (clients) {
    const api = new ToxiproxyApi(clients.toxiproxyUrl);
    for (const p of clients.proxies) assert.doesNotMatch(await api.upstreamOf(p), new RegExp(`:${new URL(dep.requestProxy!.controlUrl).port}$`));
    assert.equal(dep.requestProxy!.running(), false, 'the request proxy process is stopped');
  }
});

function context(names: ReturnType<typeof runNames>): FaultContext {
  return { runtime: 'local', allowDestructive: false, deployment: dep, admin: undefined as never, names, producers: () => [], consumers: () => [], storeFile: '', restartConsumer: async () => {}, log: () => {} };
}
const spec = (over: Record<string, unknown>): FaultSpec => ({ name: 'req', kind: 'request', atMs: 0, durationMs: 1000, ...over }) as FaultSpec;

async function sendAll(p: ProducerClient, n: number, gapMs = 0): Promise<SendAck[]> {
  const acks: SendAck[] = [];
  for (let i = 1; i <= n; i++) {
    acks.push(await p.send({ key: 'k', payload: payload('k', i) }));
    if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
  }
  return acks;
}

async function withFault<T>(tag: string, over: Record<string, unknown>, body: (p: ProducerClient) => Promise<T>): Promise<{ result: T; evidence: Record<string, any>; errors: Record<string, number> }> {
  const names = runNames(tag);
  const run = await new Run(dep, s, names).init();
  try {
    const p = await run.producer('p-producer-1');
    await sendAll(p, 3); // connected, metadata known: nothing selected yet
    const started = await request.start(spec(over), context(names));
    const result = await body(p);
    const evidence = (await started.end()) as Record<string, any>;
    return { result, evidence, errors: await p.errorsSeen!() };
  } finally {
    await run.close();
  }
}

test('reject: the selected Produce request is answered NOT_ENOUGH_REPLICAS without reaching the broker; the producer retries it, nothing is written twice', async () => {
  const { result: acks, evidence, errors } = await withFault('req-reject', { apis: ['Produce'], action: 'reject', error: 'NOT_ENOUGH_REPLICAS', position: { every: 2, limit: 3 } }, (p) => sendAll(p, 10));
  assert.equal(evidence.acted, 3, JSON.stringify(evidence));
  assert.equal(evidence.actions[0].injected, 'NOT_ENOUGH_REPLICAS');
  assert.equal(evidence.actions[0].api, 'Produce');
  assert.ok(errors.NOT_ENOUGH_REPLICAS >= 3, `the producer saw and retried it: ${JSON.stringify(errors)}`);
  // Offsets follow one another: the refused batches were never appended.
  const offsets = acks.map((a) => a.offset!);
  assert.deepEqual(offsets, offsets.map((_, i) => offsets[0]! + i));
});

test('rewrite after the append: NOT_ENOUGH_REPLICAS_AFTER_APPEND makes the producer write the batch again (a duplicate behind it)', async () => {
  const { result: acks, evidence, errors } = await withFault('req-rewrite', { apis: ['Produce'], action: 'rewrite', error: 'NOT_ENOUGH_REPLICAS_AFTER_APPEND', position: { limit: 1 } }, (p) => sendAll(p, 5));
  assert.equal(evidence.acted, 1);
  assert.deepEqual(evidence.actions[0].original, [`${evidence.actions[0].partitions[0].replace(/-0$/, '')}-0:NONE`]);
  assert.ok(errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND >= 1, JSON.stringify(errors));
  // The first send's batch was appended, answered with an error and appended again: one offset skipped.
  const offsets = acks.map((a) => a.offset!);
  assert.equal(offsets[1]! - offsets[0]!, 1);
  assert.equal(offsets[4]! - offsets[0]!, 4);
  assert.ok(offsets[0]! >= 4, 'the first send of the fault landed after its own earlier copy');
});

test('hold: the answer is held the given time, and the evidence says so', async () => {
  const { result: ms, evidence } = await withFault('req-hold', { apis: ['Produce'], action: 'hold', holdMs: 400, position: { limit: 1 } }, async (p) => {
    const t = Date.now();
    await p.send({ key: 'k', payload: payload('k', 9) });
    return Date.now() - t;
  });
  assert.equal(evidence.acted, 1);
  assert.equal(evidence.actions[0].holdMs, 400);
  assert.ok(ms >= 380, `the send took ${ms} ms`);
});

test('a request fault that selects nothing says it never acted', async () => {
  const { evidence } = await withFault('req-none', { apis: ['JoinGroup'], action: 'hold', holdMs: 100 }, (p) => sendAll(p, 2));
  assert.equal(evidence.acted, 0);
  assert.match(evidence.unexercised, /no request was selected \(0 JOIN_GROUP request/);
});

// Regression: the proxy's log is appended to, and a second proxy put in a folder an earlier one
// used read the earlier one's first line, pointing the client links at its dead ports (every
// other round of `npm run bench -- request-proxy` acked nothing).
test('a request proxy put in a folder an earlier one used takes its own ports', async () => {
  const clients = dep.links.find((l) => l.name === 'clients')!;
  const workDir = mkdtempSync(join(tmpdir(), 'convoy-request-proxy-'));
  const endpoint = parseEndpoint(dep.endpoint);
  for (let i = 1; i <= 2; i++) {
    const proxy = await insertRequestProxy({ version: dep.versions.kafka!, proxies: clients.proxies, toxiproxyUrl: clients.toxiproxyUrl, adminBootstrap: endpoint.adminBootstrapServers ?? endpoint.bootstrapServers, workDir, log: () => {} });
    const names = runNames(`req-again-${i}`);
    const run = await new Run(dep, settings({ requestProxy: true, topic: { partitions: 1 } }), names).init();
    try {
      const p = await run.producer();
      const ack = await Promise.race([p.send({ key: 'k', payload: payload('k', 1) }), new Promise<never>((_, r) => setTimeout(() => r(new Error(`proxy ${i}: no ack within 15 s`)), 15_000))]);
      assert.equal(ack.lane, 'p0');
    } finally {
      await run.close();
      await proxy.remove();
    }
  }
});

test('a slow leader: Fetch answers from the leader of partition 0 are held, and the records of the other partition on that connection are counted as its head-of-line victims', async () => {
  const names = runNames('req-slow-leader');
  const run = await new Run(dep, settings({ client: 'java', requestProxy: true, topic: { partitions: 2 }, producer: { lingerMs: 0 } }), names).init();
  try {
    const p = await run.producer('p-producer-1');
    await run.consumer('c1');
    const keys = Array.from({ length: 8 }, (_, i) => `k${i}`);
    await sendKeyed(p, keys, 1);
    const started = await request.start(spec({ apis: ['Fetch'], action: 'hold', holdMs: 150, leaderOf: 0 }), context(names));
    const acks = await sendKeyed(p, keys, 6);
    const deadline = Date.now() + 15_000;
    while (run.received.length < keys.length * 7 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const evidence = (await started.end()) as Record<string, any>;
    assert.equal(run.received.length, keys.length * 7, 'every message arrived');
    assert.deepEqual(evidence.nodes, ['node-1'], 'the one node leads partition 0');
    const hol = evidence.headOfLine;
    assert.ok(hol.heldAnswers > 0, JSON.stringify(evidence));
    assert.equal(hol.ownPartition, `${names.prefix}-0`);
    const lanes = new Set([...acks.values()].flat().map((a) => a.lane));
    assert.deepEqual([...lanes].sort(), ['p0', 'p1'], 'the keys span both partitions');
    assert.ok(hol.ownRecords > 0 && hol.victims > 0, `records of both partitions waited in held answers: ${JSON.stringify(hol)}`);
    assert.deepEqual(hol.victimPartitions, [`${names.prefix}-1`]);
    assert.equal(hol.victimAddedMsTotal, hol.victims * 150);
  } finally {
    await run.close();
  }
});

test('leaderOf a partition the topic lacks is refused when the fault starts, with the reason', async () => {
  const names = runNames('req-no-partition');
  const run = await new Run(dep, s, names).init();
  try {
    await assert.rejects(request.start(spec({ apis: ['Fetch'], action: 'hold', holdMs: 100, leaderOf: 5 }), context(names)), /has no partition 5/);
  } finally {
    await run.close();
  }
});

test('reject on OffsetCommit: the commit is answered ILLEGAL_GENERATION without reaching the group, and the consumer rejoins', async () => {
  const names = runNames('req-commit-refused');
  const run = await new Run(dep, settings({ client: 'java', requestProxy: true, topic: { partitions: 1 }, consumer: { autoCommit: true, autoCommitIntervalMs: 200, sessionTimeoutMs: 6000, heartbeatIntervalMs: 1000 } }), names).init();
  try {
    const p = await run.producer('p-producer-1');
    await run.consumer('c1');
    await sendKeyed(p, ['k'], 5);
    const deadline = Date.now() + 15_000;
    while (run.received.length < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const started = await request.start(spec({ apis: ['OffsetCommit'], action: 'reject', error: 'ILLEGAL_GENERATION', position: { limit: 1 } }), context(names));
    await sendKeyed(p, ['k'], 5);
    while (run.groupEvents.filter((g) => g.event.phase === 'assigned').length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const evidence = (await started.end()) as Record<string, any>;
    assert.equal(evidence.acted, 1, JSON.stringify(evidence));
    assert.equal(evidence.actions[0].injected, 'ILLEGAL_GENERATION');
    assert.match(evidence.actions[0].original, /not forwarded/);
    const assigned = run.groupEvents.filter((g) => g.event.phase === 'assigned');
    assert.ok(assigned.length >= 2, `the member rejoined: ${JSON.stringify(run.groupEvents)}`);
  } finally {
    await run.close();
  }
});
