/**
 * A consumer under test (consumers.service, docs/consumer-under-test.md) on the suite's Kafka:
 * the kafkajs example pair (a batch handled in parallel loses order after a freeze; its fixed
 * twin does not), a Python service that writes the report protocol itself to a file, and the
 * bad inputs (a service that dies before it is ready; reports of another run, a malformed line,
 * no handling): each run is unknown and says why. The Java pair runs nightly
 * (workloads/nightly/service-java-pool-*.yaml).
 */
// @needs kafka
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenarioFile, parseScenario } from '../../harness/scenario/load.ts';
import { runOnce } from '../../harness/runner/run-and-analyze.ts';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';
import { ReportIngest, reportProblems } from '../../harness/service/ingest.ts';
import { compareVersions, parseState, recordState, readState } from '../../harness/service/state.ts';
import type { ProcessEvent } from '../../harness/history/events.ts';
import { ROOT, readHistory } from '../runner/helpers.ts';
import { kafkaPython } from '../helpers/kafka-python.ts';

const results = mkdtempSync(join(tmpdir(), 'convoy-service-'));
const EXAMPLES = join(ROOT, 'examples/consumer-under-test');

async function run(file: string) {
  const scenario = await loadScenarioFile(file, { catalogue: await scenarioCatalogue(), onWarning: () => {} });
  const { result, runDir } = await runOnce(scenario, { runtime: 'local', resultsDir: results, keep: false, allowDestructive: false, repeat: 1, quiet: true });
  return { result: result as Record<string, any>, history: readHistory(runDir) as Record<string, any>[], runDir };
}

const found = (r: Record<string, any>, type: string) => r.expectations.find((e: any) => e.type === type).found;
const handledBy = (history: Record<string, any>[], consumer: string) => history.filter((e) => e.type === 'process' && e.consumer === consumer && e.outcome === 'ok').length;

test('kafkajs: a batch handled in parallel loses per-key order after a freeze; its fixed twin keeps it, both reported by the service', async () => {
  const buggy = await run(join(EXAMPLES, 'kafka-node/buggy.yaml'));
  assert.equal(buggy.result.verdict.status, 'pass', buggy.result.verdict.reasons.join('; '));
  assert.ok(found(buggy.result, 'reorder') > 0);
  const fixed = await run(join(EXAMPLES, 'kafka-node/fixed.yaml'));
  assert.equal(fixed.result.verdict.status, 'pass', fixed.result.verdict.reasons.join('; '));
  assert.equal(found(fixed.result, 'reorder'), 0);
  // Its own state (state.mjs: each order's version in its database) matches the truth.
  assert.deepEqual([fixed.result.workload.finalState.service.keys, fixed.result.workload.finalState.service.wrong], [20, 0]);
  // The service's processes handled everything, each its partitions, with the headers convoy sent.
  const sent = fixed.history.filter((e) => e.type === 'send').length;
  assert.ok(handledBy(fixed.history, 'c1') > 0 && handledBy(fixed.history, 'c2') > 0);
  assert.ok(handledBy(fixed.history, 'c1') + handledBy(fixed.history, 'c2') >= sent);
  assert.ok(fixed.history.filter((e) => e.type === 'process').every((e) => /^p[0-3]$/.test(e.lane)), 'lanes named as acks name them');
  // The freeze stopped the service itself: c1 started nothing while it was stopped.
  const [start, end] = fixed.history.filter((e) => e.type === 'fault');
  const stopped = fixed.history.filter((e) => e.type === 'process' && e.consumer === 'c1' && e.start > start.evidence.stoppedAtUs + 5_000 && e.start < end.at - 200_000);
  assert.equal(stopped.length, 0, `c1 handled ${stopped.length} messages while frozen`);
});

test('a Python service without convoy\'s library, reporting to a file, is judged as convoy\'s own consumers are', async () => {
  process.env.PYTHONPATH = kafkaPython();
  const r = await run(join(EXAMPLES, 'kafka-python/scenario.yaml'));
  assert.equal(r.result.verdict.status, 'pass', r.result.verdict.reasons.join('; '));
  assert.equal(found(r.result, 'lost'), 0);
  assert.ok(handledBy(r.history, 'c1') > 0 && handledBy(r.history, 'c2') > 0);
  assert.match(readFileSync(join(r.runDir, 'c1.reports.jsonl'), 'utf8'), /^\{"type":"hello","protocol":1/);
});

const badService = (mode: string, extra = '') => `
name: bad-service-${mode}
broker: { kind: kafka, topic: { partitions: 2 } }
workload: { keys: { count: 5 }, rate: { kind: fixed, perSecond: 50 }, durationMs: 1s, warmupMs: 0 }
consumers:
  processes: 1
  service: { command: [node, ${join(ROOT, 'test/service/fixtures/bad-service.mjs')}, ${mode}], readyTimeoutMs: 20s }
run: { drainTimeoutMs: 2s }
${extra}`;

async function runText(text: string) {
  const { scenario } = await parseScenario(text, { catalogue: await scenarioCatalogue(), file: join(results, 'bad.yaml') });
  const { result } = await runOnce(scenario, { runtime: 'local', resultsDir: results, keep: false, allowDestructive: false, repeat: 1, quiet: true });
  return result as Record<string, any>;
}

test('a service that exits before it is ready: unknown, with its last log lines', async () => {
  const r = await runText(badService('exits'));
  assert.equal(r.verdict.status, 'unknown');
  const text = JSON.stringify(r.harness?.failure ?? r);
  assert.match(text, /exited \(code 3\)/);
  assert.match(text, /orders database unreachable/);
});

test('a service that dies while the run goes on: unknown, naming the process and its last log lines', async () => {
  const r = await runText(badService('dies'));
  assert.equal(r.verdict.status, 'unknown');
  const text = JSON.stringify(r);
  assert.match(text, /the service's process c1 exited \(code 4\) while the run went on/);
  assert.match(text, /lost the orders database mid-run/);
});

test('reports of another run and a malformed line are counted and named, and a process that handled nothing says so: unknown, never a pass', async () => {
  const r = await runText(badService('foreign'));
  assert.equal(r.verdict.status, 'unknown');
  const text = JSON.stringify(r);
  assert.match(text, /c1: 2 reports of another run's messages \(e\.g\. some-other-run/);
  assert.match(text, /c1: 1 malformed report line/);
  assert.match(text, /no handling reported by c1/);
});

test('scenario checks: a typo in the service section and a fault that acts inside convoy\'s consumer are one line each', async () => {
  const catalogue = await scenarioCatalogue();
  const typo = badService('exits').replace('readyTimeoutMs', 'readyTimeoutMS');
  await assert.rejects(parseScenario(typo, { catalogue, file: 's.yaml' }), (e: any) => /s\.yaml:7:\d+: consumers\.service\.readyTimeoutMS: unknown property \(did you mean readyTimeoutMs\?\)/.test(e.detail.join('\n')));
  const stall = badService('exits', 'faults: [{ name: s, kind: stall, consumer: c1, atMs: 0, durationMs: 1s }]');
  await assert.rejects(parseScenario(stall, { catalogue, file: 's.yaml' }), (e: any) => /faults\[0\]\.kind: stall acts inside convoy's own consumer; a consumer under test takes freeze, kill-consumer/.test(e.detail.join('\n')));
  // A broker without a service link (the in-memory one) cannot hand a service its connection.
  const memory = badService('exits').replace('{ kind: kafka, topic: { partitions: 2 } }', '{ kind: memory }');
  await assert.rejects(parseScenario(memory, { catalogue, file: 's.yaml' }), (e: any) => /consumers\.service: the memory broker cannot run a consumer under test/.test(e.detail.join('\n')));
});

test('the reports become handling events: a start and its end are one attempt; an end without a start, a bad line, another run\'s message are counted', () => {
  const events: ProcessEvent[] = [];
  let now = 100;
  const ingest = new ReportIngest({ runId: 'r1', consumer: 'c1', lane: (l) => `p${l}`, now: () => now++, write: (e) => events.push(e) });
  const h = (seq: number, run = 'r1') => ({ 'convoy-run': run, 'convoy-producer': 'orders', 'convoy-key': 'k', 'convoy-seq': String(seq), other: 'x' });
  const line = (o: unknown) => ingest.line(JSON.stringify(o));
  assert.equal(line({ type: 'ready' }), 'ready');
  line({ type: 'start', headers: h(1), at: 10, lane: '0', offset: 4 });
  line({ type: 'start', headers: h(2), at: 11 });
  assert.equal(ingest.inFlight, 2);
  line({ type: 'end', headers: h(2), at: 15, outcome: 'error' });
  line({ type: 'end', headers: h(1), at: 20 });
  line({ type: 'end', headers: h(3), at: 21 });
  line({ type: 'start', headers: h(4, 'r0'), at: 22 });
  ingest.line('{not json');
  line({ type: 'start', headers: { ...h(5), 'convoy-seq': 'five' } });
  line({ type: 'start', headers: h(6), at: 30 });
  ingest.close();
  assert.deepEqual(events, [
    { type: 'process', key: 'k', producer: 'orders', seq: 2, consumer: 'c1', received: 11, start: 11, end: 15, outcome: 'error' },
    { type: 'process', key: 'k', producer: 'orders', seq: 1, consumer: 'c1', received: 10, start: 10, lane: 'p0', offset: 4, end: 20, outcome: 'ok' },
    { type: 'process', key: 'k', producer: 'orders', seq: 6, consumer: 'c1', received: 30, start: 30 },
  ]);
  assert.deepEqual([ingest.applied, ingest.errors, ingest.counts.started], [1, 1, 3]);
  const problems = reportProblems('c1', ingest.counts);
  assert.equal(problems.length, 3);
  assert.match(problems[0]!, /^c1: 2 malformed report lines \(e\.g\. not JSON: \{not json \| header convoy-seq is not a positive integer/);
  assert.match(problems[1]!, /^c1: 1 report of another run's message \(e\.g\. r0:/);
  assert.match(problems[2]!, /^c1: 1 end report without a start/);
});

test('the service\'s state is read as versions and compared with the truth by key, unreachable keys left out', () => {
  assert.deepEqual(parseState('{"k1":3,"k2":{"version":1,"total":5}}'), { k1: 3, k2: 1 });
  assert.throws(() => parseState('{"k1":"three"}'), /key "k1": expected an integer version, got "three"/);
  assert.throws(() => parseState('[1]'), /expected an object of keys/);
  const truth = new Map([['k1', { version: 3 }], ['k2', { version: 2 }], ['k3', { version: 1 }], ['k4', { version: 1 }]]);
  const c = compareVersions({ k1: 3, k2: 1, k5: 1 }, truth, new Set(['k3']));
  assert.deepEqual(c, {
    keys: 4, right: 1, wrong: 3, unreachable: 1,
    examples: [{ key: 'k2', expected: 2, actual: 1 }, { key: 'k4', expected: 1, actual: null }, { key: 'k5', expected: null, actual: 1 }],
  });
});

test('the service\'s state by URL: a JSON answer is its versions; an error status or no answer is why there are none; command and url, one of them', async () => {
  const server = createServer((req, res) => {
    res.statusCode = req.url === '/state' ? 200 : 503;
    res.end(req.url === '/state' ? '{"k1":3,"k2":{"version":1}}' : 'warming up');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const dir = mkdtempSync(join(tmpdir(), 'convoy-state-'));
  try {
    assert.deepEqual(await recordState({ url: `${base}/state` }, undefined, {}, dir), { versions: { k1: 3, k2: 1 } });
    assert.deepEqual(readState(dir), { versions: { k1: 3, k2: 1 } });
    assert.deepEqual(await recordState({ url: `${base}/other` }, undefined, {}, dir), { error: `GET ${base}/other: HTTP 503 warming up` });
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
  assert.match(((await recordState({ url: `${base}/state` }, undefined, {}, dir)) as { error: string }).error, /^GET http:\/\/127\.0\.0\.1:\d+\/state: fetch failed \(.+\)$/);
  const catalogue = await scenarioCatalogue();
  const both = badService('exits').replace('readyTimeoutMs: 20s }', `readyTimeoutMs: 20s, state: { command: [cat], url: '${base}/state' } }`);
  await assert.rejects(parseScenario(both, { catalogue, file: 's.yaml' }), (e: any) => /consumers\.service\.state: give a `command` or a `url`, one of them/.test(e.detail.join('\n')));
});
