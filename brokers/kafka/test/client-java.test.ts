/**
 * client: java, Apache Kafka's Java client behind the client protocol, on the Kafka the test
 * suite holds: it passes the client protocol's kit, and a whole run through it, on the consumer
 * group protocol (its session timeout set as a group config), passes with every message
 * consumed once and in order. The classic protocol runs in single-node.test.ts. The broker contract's own cases run through it in
 * conformance.test.ts.
 */
// @needs kafka
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBroker } from '../../../harness/broker/registry.ts';
import { runKit } from '../../../test/client-protocol/kit.ts';
import { convoy, onlyRunDir, readHistory } from '../../../test/runner/helpers.ts';
import { javaClientCommand } from '../client-java.ts';
import { kafkaForFile, payload, quiet, Run, runNames, settings, waitFor } from './helpers.ts';

const kafka = kafkaForFile();

test('the Java client passes the client protocol kit', { timeout: 240_000 }, async () => {
  const names = runNames('java-kit');
  const s = settings({ client: 'java' });
  const command = javaClientCommand(s, quiet);
  const kafkaModule = await loadBroker('kafka');
  const admin = await kafkaModule.admin(kafka.dep.endpoint, s, names);
  await admin.createDestinations();
  try {
    const failures = await runKit({
      command,
      configure: (role, tag) => ({ role, id: `${role}-${tag}`, endpoint: kafka.dep.endpoint, settings: { ...s }, names, maxInFlight: 100 }),
      handshakeMs: 60_000,
    });
    assert.deepEqual(failures, {});
  } finally {
    await admin.deleteDestinations().catch(() => {});
    await admin.close();
  }
});

test('a run through the Java client on the consumer group protocol passes: every message consumed, in order, by Java consumers', { timeout: 240_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-client-java-'));
  writeFileSync(
    join(dir, 's.yaml'),
    `
name: client-java
broker: { kind: kafka, client: java, topic: { partitions: 3 }, consumer: { groupProtocol: consumer, sessionTimeoutMs: 6000, heartbeatIntervalMs: 1000 } }
workload: { keys: { count: 20 }, rate: { kind: fixed, perSecond: 100 }, durationMs: 3s, warmupMs: 0s }
consumers: { processes: 2 }
run: { drainTimeoutMs: 20s }
`,
  );
  const r = await convoy(['run', join(dir, 's.yaml'), '--results', join(dir, 'results')], { timeoutMs: 200_000 });
  const result = JSON.parse(readFileSync(join(onlyRunDir(join(dir, 'results')), 'result.json'), 'utf8')) as Record<string, any>;
  assert.equal(r.code, 0, r.stderr);
  assert.equal(result.verdict.status, 'pass', result.verdict.reasons.join('\n'));
  assert.equal(result.anomalies.lost.count, 0);
  assert.equal(result.scenario.broker.client, 'java');
  assert.equal(result.scenario.broker.consumer.groupProtocol, 'consumer');
  // The broker-driven protocol gave both members partitions, and each handled messages.
  const history = readHistory(onlyRunDir(join(dir, 'results')));
  const assigned = history.filter((e) => e.type === 'rebalance' && e.phase === 'assigned' && (e.lanes as string[]).length > 0).map((e) => e.consumer);
  assert.deepEqual([...new Set(assigned)].sort(), ['c1', 'c2']);
  const handledBy = new Set(history.filter((e) => e.type === 'process').map((e) => e.consumer));
  assert.deepEqual([...handledBy].sort(), ['c1', 'c2']);
  assert.match(result.versions.clients['kafka-clients'], /^4\.\d+\.\d+$/, 'the result names the Java client and its version');
});

// Regression: the Java client stopped reading its socket once told to close, so its last commit
// waited for a commit-ok it never read, and what was settled since the last interval was not
// committed (the broker held 262 messages after an interrupted run).
test('closing commits what was settled since the last interval: the close reads the worker\'s commit-ok', { timeout: 120_000 }, async () => {
  const s = settings({ client: 'java', topic: { partitions: 1 }, consumer: { autoCommitIntervalMs: 600_000 } });
  const run = await new Run(kafka.dep, s, runNames('java-close')).init();
  try {
    const c = await run.consumer('c1');
    await c.ready(30_000);
    const p = await run.producer();
    for (let seq = 1; seq <= 5; seq++) await p.send({ key: 'k', payload: payload('k', seq) });
    await waitFor(() => run.received.length === 5, 20_000, 'five deliveries');
    const started = Date.now();
    await c.close();
    assert.ok(Date.now() - started < 5_000, `close took ${Date.now() - started} ms`);
    const committed = (await run.admin.describeConsumerGroup()).committed as Record<string, number>;
    assert.equal(committed.p0, run.received[4]!.offset + 1, 'committed past the fifth on close');
  } finally {
    await run.close();
  }
});
