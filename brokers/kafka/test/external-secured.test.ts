/**
 * convoy against a team's own Kafka: a 3-node KRaft cluster convoy's runtime did not start
 * (secured-cluster.ts: SASL on the client listener, StandardAuthorizer, SCRAM users, only the
 * ACLs docs/external.md lists), driven through `convoy run --runtime external --connection`:
 *   - SCRAM-SHA-512, the password in an environment variable: the run passes, its topic takes
 *     the cluster's default replication, the result records what the cluster reported, and no
 *     file the run wrote and nothing it said holds the password; beside it, OAUTHBEARER with an
 *     unsecured JWT on the Java client;
 *   - a user that may not create topics: without topic.name the run fails at once with one
 *     line; with topic.name two runs at once share the pre-created topic and each passes,
 *     passing over the other's messages; a missing or too small topic is bad input;
 *   - a run killed with SIGKILL mid-way leaves its topic, and `convoy clean --external` deletes it.
 */
// @needs own kafka
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAcls, createTopic, listTopics, startSecuredCluster, type SecuredCluster } from './secured-cluster.ts';
import { kafkaAdmin } from '../admin.ts';
import { resolveSettings } from '../settings.ts';
import { InputError } from '../../../harness/errors.ts';
import { runConvoy, said, type Ran } from '../../../test/helpers/convoy-cli.ts';

const PASSWORD = 'Sx9-convoy-staging-pw';
const LIMITED_PASSWORD = 'Lq4-limited-user-pw';
const SHARED = 'orders-shared';

let cluster: SecuredCluster;
const dir = mkdtempSync(join(tmpdir(), 'convoy-external-secured-'));
const results = join(dir, 'results');
const state = join(dir, 'state');

before(async () => {
  cluster = await startSecuredCluster({ admin: 'admin-secret-pw', convoy: PASSWORD, limited: LIMITED_PASSWORD });
  process.stderr.write(`  secured 3-node cluster up in ${cluster.ms} ms\n`);
  // Exactly what docs/external.md lists for each mode.
  await createAcls(cluster.admin, [
    { resource: 'topic', name: 'convoy-', prefixed: true, principal: 'User:convoy', operations: ['CREATE', 'DELETE', 'DESCRIBE', 'READ', 'WRITE'] },
    { resource: 'group', name: 'convoy-', prefixed: true, principal: 'User:convoy', operations: ['READ', 'DESCRIBE', 'DELETE'] },
    { resource: 'topic', name: SHARED, principal: 'User:limited', operations: ['DESCRIBE', 'READ', 'WRITE'] },
    { resource: 'group', name: 'convoy-', prefixed: true, principal: 'User:limited', operations: ['READ', 'DESCRIBE', 'DELETE'] },
  ]);
  await createTopic(cluster.admin, SHARED, 2);
});

after(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function scenario(name: string, client: string, durationS = 2): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
seed: 7
broker: { kind: kafka, client: ${client}, topic: { partitions: 2 }, consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 1000 } }
workload:
  keys: { count: 20 }
  rate: { kind: fixed, perSecond: 100 }
  durationMs: ${durationS}s
  warmupMs: 0ms
consumers: { processes: 1, handler: { kind: constant, ms: 0 } }
run: { drainTimeoutMs: 20s }
`,
  );
  return file;
}

function connection(name: string, lines: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `kind: kafka\nbootstrapServers: ${cluster.bootstrap}\n${lines}\n`);
  return file;
}

/** `convoy <args>` as a user runs it; the passwords only in the environment. */
const convoy = (args: string[], onStart?: (pid: number) => void) => runConvoy(args, { KAFKA_PASSWORD: PASSWORD, LIMITED_PASSWORD, XDG_STATE_HOME: state }, onStart);

const run = (file: string, conn: string, onStart?: (pid: number) => void) => convoy(['run', file, '--runtime', 'external', '--connection', conn, '--results', results], onStart);

function filesUnder(d: string): string[] {
  return readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? filesUnder(join(d, n)) : [join(d, n)]));
}

/** The result of the run of scenario `name` (each test's scenarios have names of their own). */
function resultOf(name: string, r: Ran): Record<string, any> {
  const folder = readdirSync(results).find((n) => n.startsWith(`${name}-`) && existsSync(join(results, n, 'result.json')));
  assert.ok(folder, `the run's folder in ${results}:\n${said(r)}`);
  return { ...JSON.parse(readFileSync(join(results, folder, 'result.json'), 'utf8')), runDir: join(results, folder) };
}


test('SCRAM-SHA-512 from a connection file, the password by reference, and at the same time OAUTHBEARER (unsecured JWT) on the Java client: both pass; the result records the cluster; no password written or said', async () => {
  const conn = connection('scram', 'sasl:\n  mechanism: scram-sha-512\n  username: convoy\n  password: ${env:KAFKA_PASSWORD}');
  const oauth = connection('oauth', 'sasl:\n  mechanism: oauthbearer\n  principal: convoy');
  const [r, o] = await Promise.all([run(scenario('external-scram', 'kafkajs'), conn), run(scenario('external-oauth', 'java'), oauth)]);
  process.stderr.write(`  scram run (kafkajs): exit ${r.code} in ${r.ms} ms; oauthbearer run (java): exit ${o.code} in ${o.ms} ms\n`);
  assert.equal(o.code, 0, said(o));
  assert.equal(resultOf('external-oauth', o).verdict.status, 'pass', said(o));
  assert.equal(r.code, 0, said(r));
  const result = resultOf('external-scram', r);
  assert.equal(result.verdict.status, 'pass', said(r));
  const cluster = result.versions.cluster;
  assert.equal(cluster.brokers, 3);
  assert.match(cluster.clusterId, /^[A-Za-z0-9_-]{22}$/);
  assert.ok(cluster.features['metadata.version'] > 0, JSON.stringify(cluster.features));
  assert.equal(cluster.apiVersions['0']?.length, 2, 'Produce has a version range');
  assert.equal(result.versions.brokers['metadata.version'], String(cluster.features['metadata.version']));
  const files = filesUnder(result.runDir);
  const leaks = [...files.filter((f) => readFileSync(f).includes(PASSWORD)), ...(said(r).includes(PASSWORD) ? ['stdout/stderr'] : [])];
  process.stderr.write(`  grep for the password in ${files.length} files of the run folder and its stdout/stderr: ${leaks.length} hit(s)\n`);
  assert.deepEqual(leaks, []);
});

test('a user without create rights: without topic.name one clear line, with it two runs share the topic made beforehand and each passes', async () => {
  const limited = 'sasl:\n  mechanism: scram-sha-512\n  username: limited\n  password: ${env:LIMITED_PASSWORD}';
  const refused = await run(scenario('external-no-create', 'kafkajs'), connection('limited', limited));
  process.stderr.write(`  run without create rights: exit ${refused.code} in ${refused.ms} ms\n`);
  assert.notEqual(refused.code, 0);
  assert.match(refused.err, /creating topic convoy-[^ ]+: not authorized .*topic\.name/);
  process.stderr.write(`  its line: ${refused.err.split('\n').find((l) => /not authorized/.test(l))}\n`);
  assert.ok(refused.ms < 30_000, `failed in ${refused.ms} ms, not a hang`);
  const ledger = join(state, 'convoy', 'external-runs');
  assert.deepEqual(existsSync(ledger) ? readdirSync(ledger).filter((f) => f.includes('external-no-create')) : [], [], 'it created nothing, and its ledger entry is gone');
  const shared = connection('shared', `${limited}\ntopic:\n  name: ${SHARED}`);
  const [a, b] = await Promise.all([run(scenario('external-shared-a', 'kafkajs'), shared), run(scenario('external-shared-b', 'confluent'), shared)]);
  process.stderr.write(`  two runs on the pre-created topic: exit ${a.code}, ${b.code} in ${a.ms}, ${b.ms} ms\n`);
  for (const [name, r] of [['external-shared-a', a], ['external-shared-b', b]] as const) {
    assert.equal(r.code, 0, said(r));
    const result = resultOf(name, r);
    assert.equal(result.verdict.status, 'pass', said(r));
  }
  assert.deepEqual(await listTopics(cluster.admin, SHARED), [SHARED], 'the topic made beforehand is left');
});

test("a scenario that sets no replication gets the cluster's (RF -1: default.replication.factor 3, no min.insync.replicas of its own)", async () => {
  const names = { runId: 'rf-default', prefix: 'convoy-rf-default' };
  const convoyUser = { bootstrapServers: cluster.bootstrap.split(','), external: true, sasl: { mechanism: 'scram-sha-512' as const, username: 'convoy', password: PASSWORD } };
  const admin = await kafkaAdmin(convoyUser, resolveSettings({ kind: 'kafka', topic: { partitions: 2 } }), names);
  try {
    await admin.createDestinations();
    const md = await admin.client.fetchTopicMetadata({ topics: [names.prefix] });
    assert.deepEqual(md.topics[0]!.partitions.map((p) => p.replicas.length), [3, 3]);
    // Describing configs is the super user's right, not convoy's.
    const su = await kafkaAdmin(cluster.admin, resolveSettings({ kind: 'kafka' }), names);
    try {
      const configs = await su.client.describeConfigs({ includeSynonyms: false, resources: [{ type: 2, name: names.prefix, configNames: ['min.insync.replicas'] }] });
      const entry = configs.resources[0]!.configEntries[0] as unknown as { configValue: string; configSource: number };
      assert.deepEqual([entry.configValue, entry.configSource === 1], ['2', false], "min.insync.replicas is the cluster's 2, not the topic's own");
    } finally {
      await su.close();
    }
  } finally {
    await admin.deleteDestinations();
    await admin.close();
  }
});

test('a pre-created topic that does not exist, or has fewer partitions than the scenario, is bad input', async () => {
  const settings = resolveSettings({ kind: 'kafka', topic: { partitions: 3 } });
  const names = { runId: 'bad-topic', prefix: 'convoy-bad-topic' };
  const limited = { bootstrapServers: cluster.bootstrap.split(','), external: true, runTagged: true, sasl: { mechanism: 'scram-sha-512' as const, username: 'limited', password: LIMITED_PASSWORD } };
  for (const [topic, why] of [
    ['orders-missing', /topic\.name orders-missing: no such topic/],
    [SHARED, /topic\.name orders-shared has 2 partition\(s\), fewer than the scenario's broker\.topic\.partitions 3/],
  ] as const) {
    const admin = await kafkaAdmin({ ...limited, topic }, settings, names);
    try {
      await assert.rejects(admin.createDestinations(), (err: Error) => err instanceof InputError && why.test(err.message) && !err.message.includes('\n'));
    } finally {
      await admin.close();
    }
  }
});

test('a run killed with SIGKILL leaves its topic; convoy clean --external deletes it and says so', async () => {
  const conn = connection('scram-kill', 'sasl:\n  mechanism: scram-sha-512\n  username: convoy\n  password: ${env:KAFKA_PASSWORD}');
  const ledger = join(state, 'convoy', 'external-runs');
  let pid = 0;
  const killed = run(scenario('external-killed', 'kafkajs', 60), conn, (p) => (pid = p));
  const started = Date.now();
  const seen = new Set(existsSync(ledger) ? readdirSync(ledger) : []);
  // Wait for the run's ledger entry and its topic, then kill the convoy process itself.
  let topic: string | undefined;
  while (Date.now() - started < 40_000) {
    const entry = existsSync(ledger) ? readdirSync(ledger).find((f) => !seen.has(f) && f.includes('external-killed')) : undefined;
    if (entry) {
      const prefix = JSON.parse(readFileSync(join(ledger, entry), 'utf8')).prefix as string;
      if ((await listTopics(cluster.admin, prefix)).length) {
        topic = prefix;
        break;
      }
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.ok(topic, 'the run created its topic');
  process.kill(pid, 'SIGKILL');
  await killed;
  assert.deepEqual(await listTopics(cluster.admin, topic), [topic], 'the killed run left its topic');
  const clean = await convoy(['clean', '--external', '--connection', conn]);
  process.stderr.write(`  convoy clean --external: exit ${clean.code} in ${clean.ms} ms: ${clean.out.trim()}\n`);
  assert.equal(clean.code, 0, said(clean));
  assert.match(clean.out, new RegExp(`deleted topic ${topic}, group ${topic}-group \\(run `));
  assert.deepEqual(await listTopics(cluster.admin, topic), []);
  assert.ok(!said(clean).includes(PASSWORD));
});
