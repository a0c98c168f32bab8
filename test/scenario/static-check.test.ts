/**
 * Static mistakes refused before anything starts: faults naming what the scenario
 * does not have, faults the broker cannot do with these settings on the runtime, expectations
 * scoped to a fault that cannot start inside the run. Real broker modules and fault kinds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { validateFiles } from '../../harness/cli/commands/validate.ts';
import type { Target } from '../../harness/scenario/static-check.ts';
import { fixture } from './helpers.ts';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const s = (name: string) => fixture(`static/${name}.yaml`);

/** Fixture, where it is meant to run, the one problem validate must name. */
const BAD: [string, Partial<Target>, string][] = [
  // Three static mistakes: a fault the broker cannot do, a consumer it does not have, a window past the run.
  ['kill-consumer-c7', {}, 'faults[0].consumer: no consumer "c7" in this scenario; expected one of busiest, c1, c2 (consumers.processes is 2)'],
  ['rabbitmq-add-partitions', {}, 'faults[0]: rabbitmq cannot add partitions on the local runtime: RabbitMQ queues have no partitions to add (topology competing)'],
  ['late-fault-expectation', {}, 'expect.reorder.during: fault "late-stall" starts at 60 s, which cannot happen inside the run: the run is over by then (sending 5 s + drain 15 s = 20 s into the measured phase)'],
  // More of the same kinds.
  ['stall-unknown-consumer', {}, 'faults[0].consumer: no consumer "c3" in this scenario; expected one of busiest, c1, c2 (consumers.processes is 2)'],
  ['leave-consumer-c3', {}, 'faults[0].consumer: no consumer "c3" in this scenario; expected one of busiest, c1, c2 (consumers.processes is 2)'],
  ['freeze-unknown-consumer', {}, 'faults[0].consumer: no consumer "c0" in this scenario; expected one of busiest, c1, c2 (consumers.processes is 2)'],
  ['handler-errors-unknown-consumer', {}, 'faults[0].consumers[1]: no consumer "c9" in this scenario; expected one of c1, c2 (consumers.processes is 2)'],
  ['kafka-static-member-c3', {}, 'broker.consumer.staticMembership: no consumer "c3"; expected one of c1, c2 (consumers.processes is 2)'],
  ['kill-broker-unknown-node', {}, 'faults[0].node: no node "node-3" in this deployment; expected one of node-1'],
  ['network-unknown-link', {}, 'faults[0].link: no link "node-2" in this deployment; expected one of clients'],
  ['kafka-add-partitions-fewer', {}, 'faults[0].to: expected more than the 6 partitions the topic starts with, got 4'],
  ['redrive-without-dead-letters', {}, 'faults[0]: rabbitmq cannot redrive dead letters on the local runtime: this scenario has no dead-letter queue (set broker.deadLetter.enabled: true)'],
  ['kafka-redrive', {}, 'faults[0]: kafka cannot redrive dead letters on the local runtime: Kafka has a dead-letter topic only for a share group (broker.consumer.groupProtocol: share, consumer.share.deadLetterTopic: true, Kafka 4.4 on); a consumer group parks poison messages by its strategy'],
  ['sqs-add-partitions', {}, 'faults[0]: sqs cannot add partitions on the local runtime: SQS queues have no partitions to add'],
  ['fault-after-max-duration', {}, 'expect.duplicate.after: fault "late" starts at 400 s, which cannot happen inside the run: run.maxDurationMs 300 s ends the run before it (warm-up 2 s + 400 s)'],
  ['late-fault-in-list', {}, 'expect.reorder[1].before: fault "late" starts at 20 s, which cannot happen inside the run: the run is over by then (sending 5 s + drain 15 s = 20 s into the measured phase)'],
  ['clock-skew-unknown-producer', {}, 'faults[0].producer: no producer "payments" in this scenario; expected one of orders'],
  ['clock-skew-unknown-process', {}, 'faults[0].process: producer "orders" has 2 processes (workload.producers[].processes); expected 1..2, got 3'],
  ['clock-skew-offset-too-far', {}, 'faults[0].offsetMs: expected integer ≥ -3600000 and ≤ 3600000, got -3600001'],
  // Fine locally, refused on another runtime.
  ['kafka-kill-broker', { runtime: 'external', allowDestructive: true }, 'faults[0]: kafka on the external runtime has no broker nodes convoy can kill (convoy does not run its processes)'],
  ['kafka-kill-broker', { runtime: 'containers' }, 'faults[0]: kafka on the containers runtime has no broker nodes convoy can kill (convoy does not run its processes)'],
  ['kafka-network', { runtime: 'external' }, 'faults[0]: kafka on the external runtime has no Toxiproxy links, so no network faults'],
  ['servicebus-network', { runtime: 'containers' }, 'faults[0]: servicebus on the containers runtime has no Toxiproxy links, so no network faults'],
  ['kafka-add-partitions', { runtime: 'external' }, 'faults[0]: add-partitions (grow) changes or hurts the target broker: refused on the external runtime without --allow-destructive'],
  // isolate: only where convoy runs the nodes and their peer links go through proxies.
  ['kafka-isolate-direct', {}, 'faults[0]: kafka cannot cut broker nodes off from each other on the local runtime: the nodes reach each other directly; set broker.peerLinks: proxied'],
  ['kafka-isolate', { runtime: 'containers' }, 'faults[0]: kafka cannot cut broker nodes off from each other on the containers runtime: only a local cluster has peer links convoy can cut (broker.peerLinks: proxied)'],
  ['kafka-isolate', { runtime: 'external', allowDestructive: true }, 'faults[0]: kafka cannot cut broker nodes off from each other on the external runtime: only a local cluster has peer links convoy can cut (broker.peerLinks: proxied)'],
  ['kafka-isolate-unknown-node', {}, 'faults[0].nodes: no node "node-4" in this deployment; expected controller-leader, partition-leader or some of node-1, node-2, node-3'],
  ['kafka-isolate-every-node', {}, 'faults[0].nodes: cutting off all 3 nodes leaves no other side; name fewer'],
  ['rabbitmq-isolate', {}, 'faults[0]: rabbitmq cannot cut broker nodes off from each other on the local runtime: a single node has no peers (set broker.nodes: 3)'],
  // request: only through the request proxy of a local Kafka, naming what the proxy knows.
  ['kafka-request-no-proxy', {}, 'faults[0]: kafka cannot act on single requests on the local runtime: the client links have no request proxy; set broker.requestProxy: true'],
  ['kafka-request', { runtime: 'external' }, "faults[0]: kafka cannot act on single requests on the external runtime: only on the local runtime (an external cluster advertises its own addresses, so no proxy of convoy's sits on its links)"],
  ['rabbitmq-request', {}, 'faults[0]: rabbitmq cannot act on single requests on the local runtime: this broker has no request proxy'],
  ['kafka-request-reject-fetch', {}, 'faults[0].apis: reject acts on one API, Produce or OffsetCommit (apis: [Produce])'],
  ['kafka-request-unknown-api', {}, 'faults[0].apis[0]: expected one of Produce, Fetch, ListOffsets, Metadata, OffsetCommit, OffsetFetch, FindCoordinator, JoinGroup, Heartbeat, LeaveGroup, SyncGroup, InitProducerId, ConsumerGroupHeartbeat; got "Prodce"'],
  ['kafka-request-unknown-error', {}, 'faults[0].error: expected one of NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND, NOT_LEADER_OR_FOLLOWER, REQUEST_TIMED_OUT, KAFKA_STORAGE_ERROR, UNKNOWN_TOPIC_OR_PARTITION, CORRUPT_MESSAGE, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH, FENCED_MEMBER_EPOCH, REBALANCE_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS; got "NOT_ENOUGH_REPLICA"'],
];

/** The same fixtures where they are fine: the checks do not refuse everything. */
const GOOD: [string, Partial<Target>][] = [
  ['kafka-kill-broker', {}],
  ['clock-skew', {}],
  ['kafka-network', { runtime: 'containers' }],
  ['servicebus-network', {}],
  ['kafka-add-partitions', {}],
  ['kafka-add-partitions', { runtime: 'external', allowDestructive: true }],
  ['kafka-isolate', {}],
  ['kafka-request', {}],
];

for (const [name, target, problem] of BAD) {
  test(`validate refuses ${name} (${target.runtime ?? 'local'}) naming the path`, async () => {
    const lines: string[] = [];
    const code = await validateFiles([s(name)], (l) => lines.push(l), { catalogue: await scenarioCatalogue(), target });
    assert.equal(code, 2);
    assert.equal(lines.length, 2);
    assert.equal(lines[0], `invalid ${s(name)}: invalid scenario (1 problem)`);
    // Each problem is located: file:line:col, then the path.
    assert.equal(lines[1].replace(/^ {2}(.+?):\d+:\d+: /, (_, f: string) => (f === s(name) ? '  ' : '  (another file) ')), `  ${problem}`);
  });
}

for (const [name, target] of GOOD) {
  test(`validate accepts ${name} (${target.runtime ?? 'local'})`, async () => {
    const lines: string[] = [];
    assert.equal(await validateFiles([s(name)], (l) => lines.push(l), { catalogue: await scenarioCatalogue(), target }), 0, lines.join('\n'));
  });
}

test('every nightly and partitions scenario passes validate on the local runtime', async () => {
  const files = ['nightly', 'partitions'].flatMap((suite) => {
    const dir = fileURLToPath(new URL(`../../workloads/${suite}/`, import.meta.url));
    return readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => dir + f);
  });
  const lines: string[] = [];
  assert.equal(await validateFiles(files, (l) => lines.push(l), { catalogue: await scenarioCatalogue() }), 0, lines.filter((l) => !l.startsWith('ok')).join('\n'));
});

function cli(args: string[]) {
  return spawnSync(process.execPath, ['bin/convoy.js', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
}

test('convoy validate: exit 2, one screen per file, no stack trace (the real CLI)', () => {
  const locals = [...new Set(BAD.filter(([, t]) => !t.runtime).map(([n]) => n))];
  const r = cli(['validate', ...locals.map(s)]);
  assert.equal(r.status, 2, r.stdout + r.stderr);
  // Problems go to stderr, as every command's do; nothing was valid, so stdout is empty.
  assert.equal(r.stdout, '');
  assert.doesNotMatch(r.stderr, /^\s+at |Error:|internal error/m);
  // One block per file: its "invalid" line and its problems, each well inside one screen.
  const blocks = r.stderr.trimEnd().split(/\n(?=invalid )/);
  assert.deepEqual(blocks.map((b) => b.split('\n')[0].split(':')[0]), locals.map((n) => `invalid ${s(n)}`));
  for (const b of blocks) assert.ok(b.split('\n').length <= 5, `too long:\n${b}`);
  const ext = cli(['validate', '--runtime', 'external', s('kafka-network'), s('kafka-add-partitions')]);
  assert.equal(ext.status, 2);
  assert.match(ext.stderr, /kafka on the external runtime has no Toxiproxy links/);
  assert.match(ext.stderr, /refused on the external runtime without --allow-destructive/);
  assert.equal(cli(['validate', '--runtime', 'external', '--allow-destructive', s('kafka-add-partitions')]).status, 0);
});

test('convoy run refuses a bad scenario before it starts anything: exit 2, no run folder', () => {
  const results = fileURLToPath(new URL(`../../results/.static-check-${process.pid}/`, import.meta.url));
  const r = cli(['run', '--results', results, s('kill-consumer-c7')]);
  assert.equal(r.status, 2, r.stdout + r.stderr);
  assert.match(r.stderr, /faults\[0\]\.consumer: no consumer "c7"/);
  assert.doesNotMatch(r.stderr, /^\s+at /m);
  assert.throws(() => readdirSync(results), /ENOENT/);
});
