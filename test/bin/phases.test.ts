/**
 * bin/run-tests.js's plan: the tests that need no broker first, several processes at once, then
 * those that start real brokers, one at a time; a folder to a process, cut into chunks where the
 * remembered times (bin/test-times.js) say it would take more than its share, and the slowest
 * processes first. `--list` prints the plan the run uses, so it is checked here without starting a
 * broker; the times are recorded by a real run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../runner/helpers.ts';
// @ts-expect-error: a plain JavaScript module of bin/ (it runs before TypeScript can), untyped
import { NeedsError, holdSteps, lanesOf, needsOf, segmentsOf } from '../../bin/test-plan.js';

function runTests(args: string[], times: string, concurrency = '3', lanes = '1') {
  const env: NodeJS.ProcessEnv = { ...process.env, CONVOY_TEST_TIMES: times, CONVOY_TEST_CONCURRENCY: concurrency, CONVOY_TEST_BROKER_LANES: lanes };
  delete env.NODE_TEST_CONTEXT; // else a nested runner reports to this one instead of running
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'run-tests.js'), ...args], { cwd: ROOT, encoding: 'utf8', env, timeout: 120_000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  return r.stdout;
}

function timesFile(t: { after: (fn: () => void) => void }, times?: Record<string, number>): string {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-test-times-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'test-times.json');
  if (times) writeFileSync(file, JSON.stringify(times));
  return file;
}

test('the tests that need nothing run first and several at once; those that need brokers after, one at a time, with the brokers they share held', (t) => {
  const none = timesFile(t);
  // Filters in the opposite order to the phases: the order comes from the needs, not the filter.
  assert.equal(runTests(['--list', 'test/faults/kafka-faults.test.ts', 'test/workload/rng.test.ts', 'test/checker/order.property.test.ts'], none), [
    '# phase 1: 3 at once', 'test/checker/order.property.test.ts', '', 'test/workload/rng.test.ts',
    '# phase 2: a file at a time', '## holding kafka', 'test/faults/kafka-faults.test.ts', '',
  ].join('\n'));
  assert.equal(runTests(['--list', 'test/faults/kafka-faults.test.ts'], none), '# phase 1: a file at a time\n## holding kafka\ntest/faults/kafka-faults.test.ts\n');
  // Brokers of their own first, while nothing is held; then each shared broker's files together; programs last.
  const mixed = ['--list', 'brokers/sqs/test/queues', 'brokers/kafka/test/cluster', 'test/report/dashboard', 'brokers/sqs/test/conformance', 'brokers/kafka/test/single-node'];
  assert.equal(runTests(mixed, none), [
    '# phase 1: a file at a time', '## holding nothing', 'brokers/kafka/test/cluster.test.ts',
    '## holding kafka', 'brokers/kafka/test/single-node.test.ts', '## holding sqs', 'brokers/sqs/test/conformance.test.ts', 'brokers/sqs/test/queues.test.ts',
    '## holding nothing, beside the others', 'test/report/dashboard.test.ts', '',
  ].join('\n'));
  // In two lanes: what starts brokers of its own first, alone; then each broker's files in a lane,
  // the longest first; what needs only a program (or a light broker of its own) in the shorter lane.
  const times = timesFile(t, { 'brokers/kafka/test/single-node.test.ts': 5_000, 'brokers/sqs/test/queues.test.ts': 20_000, 'brokers/sqs/test/conformance.test.ts': 1_000 });
  assert.equal(runTests(mixed, times, '3', '2'), [
    '# phase 1: a file at a time in each of up to 2 lanes', '## holding nothing', 'brokers/kafka/test/cluster.test.ts',
    '## lane 1, holding sqs', 'brokers/sqs/test/conformance.test.ts', 'brokers/sqs/test/queues.test.ts',
    '## lane 2, holding kafka', 'brokers/kafka/test/single-node.test.ts', '## lane 2, holding nothing, beside the others', 'test/report/dashboard.test.ts', '',
  ].join('\n'));
  const unit = runTests(['--list', '--unit'], none);
  assert.equal(unit.match(/^# phase/gm)?.length, 1);
  assert.match(unit, /^# phase 1: 3 at once\n/);
  assert.doesNotMatch(unit, /kafka-faults|single-node|report-page/);
  assert.match(unit, /^brokers\/memory\/test\//m, 'the in-process broker\'s tests need nothing');
  assert.match(unit, /^brokers\/kafka\/test\/settings\.test\.ts$/m, 'a broker\'s own tests that start nothing need nothing');
});

test('a file says what it needs in its @needs line; a word the plan does not know is one clear error', () => {
  const need = (file: string) => needsOf(`test/bin/fixtures/needs/${file}`);
  assert.deepEqual(need('none.ts'), { shared: [], own: false, tools: [], ownBrokers: [], beside: false });
  assert.deepEqual(need('shared.ts'), { shared: ['kafka', 'rabbitmq'], own: false, tools: [], ownBrokers: [], beside: false });
  assert.deepEqual(need('own.ts'), { shared: [], own: true, tools: [], ownBrokers: ['kafka'], beside: false });
  assert.deepEqual(need('tool.ts'), { shared: [], own: false, tools: ['chromium'], ownBrokers: [], beside: false });
  assert.throws(() => need('typo.ts'), (e: Error) => e instanceof NeedsError && e.message === 'test/bin/fixtures/needs/typo.ts:4: @needs: unknown need "kafak"; expected broker names (kafka, pubsub, rabbitmq, servicebus, sqs), "own" and then broker names (and "beside" last), or tools (chromium, toxiproxy, go, root, postgres)');
  assert.throws(() => need('own-nothing.ts'), /own-nothing\.ts: @needs own: name the brokers it starts/);
  assert.deepEqual(need('own-beside.ts'), { shared: [], own: true, tools: [], ownBrokers: ['servicebus'], beside: true });
  assert.throws(() => need('beside-early.ts'), /beside-early\.ts:2: @needs: unknown need "beside"/);
});

test('a fresh machine (no times of its own) balances the lanes by the checked-in times: Kafka\'s files alone in a lane', () => {
  const cache = mkdtempSync(join(tmpdir(), 'convoy-fresh-cache-'));
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, CONVOY_CACHE: cache, CONVOY_TEST_BROKER_LANES: '2' };
    delete env.CONVOY_TEST_TIMES;
    delete env.NODE_TEST_CONTEXT;
    const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'run-tests.js'), '--list'], { cwd: ROOT, encoding: 'utf8', env, timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const lanes = r.stdout.split('\n').filter((l) => l.startsWith('## lane'));
    // Beside it, at most files that hold no broker.
    assert.deepEqual(lanes.filter((l) => l.startsWith('## lane 1,') && !l.endsWith('beside the others')), ['## lane 1, holding kafka']);
    assert.ok(lanes.filter((l) => l.startsWith('## lane 2,')).length >= 3, lanes.join('\n'));
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});

test('lanes never share a broker: segments linked by a broker go in one lane', () => {
  const seg = (hold: string[], files: string[]) => ({ hold, files });
  const segments = [seg([], ['own']), seg(['kafka'], ['k']), seg(['kafka', 'rabbitmq'], ['kr']), seg(['pubsub'], ['p']), seg(['rabbitmq'], ['r']), seg(['sqs'], ['s'])];
  const { alone, lanes } = lanesOf(segments, 2);
  assert.deepEqual(alone, seg([], ['own']));
  assert.deepEqual(lanes.map((l: { hold: string[] }[]) => l.map((s) => s.hold.join('+'))), [['kafka', 'kafka+rabbitmq', 'rabbitmq'], ['pubsub', 'sqs']]);
  assert.deepEqual(lanesOf(segments, 1).lanes.map((l: unknown[]) => l.length), [5], 'one lane: every segment, in order');
  // What holds nothing but may run beside the others shares no broker: it goes in the shorter lane.
  const beside = [...segments, { hold: [], files: ['tool'], beside: true }];
  const two = lanesOf(beside, 2);
  assert.deepEqual(two.alone, seg([], ['own']));
  assert.deepEqual(two.lanes.map((l: { hold: string[] }[]) => l.map((s) => s.hold.join('+') || 'beside')), [['kafka', 'kafka+rabbitmq', 'rabbitmq'], ['pubsub', 'sqs', 'beside']]);
});

test('the files beside the others are dealt out one by one, the slowest first, to the lane that ends soonest', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-beside-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const times = join(dir, 'times.json');
  // Kafka's lane 100 s, Pub/Sub's 40 s: the 50 s file evens them (90), the rest go where the lane ends soonest.
  writeFileSync(times, JSON.stringify({ k: 100_000, p: 40_000, b50: 50_000, b20: 20_000, b15: 15_000, b5: 5_000 }));
  const before = process.env.CONVOY_TEST_TIMES;
  process.env.CONVOY_TEST_TIMES = times;
  t.after(() => (before === undefined ? delete process.env.CONVOY_TEST_TIMES : (process.env.CONVOY_TEST_TIMES = before)));
  const { lanes } = lanesOf([{ hold: ['kafka'], files: ['k'] }, { hold: ['pubsub'], files: ['p'] }, { hold: [], files: ['b5', 'b15', 'b20', 'b50'], beside: true }], 2);
  assert.deepEqual(lanes, [
    [{ hold: ['kafka'], files: ['k'] }, { hold: [], files: ['b15'], beside: true }],
    [{ hold: ['pubsub'], files: ['p'] }, { hold: [], files: ['b5', 'b20', 'b50'], beside: true }],
  ]);
});

test('one broker\'s files that outweigh the other lanes are split: the slowest go to a segment of their own in the shortest lane, holding another instance', () => {
  const seg = (hold: string[], files: string[]) => ({ hold, files });
  // Unknown files weigh 10 s each; a second Kafka costs the lane 20 s to start.
  const kafka = seg(['kafka'], ['k1', 'k2', 'k3', 'k4', 'k5', 'k6']);
  const { lanes } = lanesOf([kafka, seg(['pubsub'], ['p'])], 2);
  assert.deepEqual(lanes, [[seg(['kafka'], ['k2', 'k3', 'k4', 'k5', 'k6'])], [seg(['pubsub'], ['p']), seg(['kafka'], ['k1'])]]);
  // Balanced lanes, or one file to the broker: nothing moves.
  const even = lanesOf([seg(['kafka'], ['k1', 'k2']), seg(['pubsub'], ['p1', 'p2'])], 2).lanes;
  assert.deepEqual(even.map((l: { files: string[] }[]) => l.map((s) => s.files.length)), [[2], [2]]);
  const one = lanesOf([seg(['kafka'], ['k1']), seg(['pubsub'], ['p'])], 2).lanes;
  assert.deepEqual(one.map((l: { files: string[] }[]) => l.map((s) => s.files)), [[['k1']], [['p']]]);
});

test('a shared broker is held from the first segment that needs it to the last', () => {
  const files = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
  const needs = new Map([
    ['a', { shared: ['rabbitmq'], own: false, tools: [], ownBrokers: [], beside: false }],
    ['b', { shared: ['kafka'], own: false, tools: [], ownBrokers: [], beside: false }],
    ['c', { shared: [], own: true, tools: [], ownBrokers: ['kafka'], beside: false }],
    ['d', { shared: ['kafka', 'rabbitmq'], own: false, tools: [], ownBrokers: [], beside: false }],
    ['e', { shared: ['kafka'], own: false, tools: [], ownBrokers: [], beside: false }],
    ['f', { shared: [], own: false, tools: ['chromium'], ownBrokers: [], beside: false }],
    ['g', { shared: [], own: true, tools: [], ownBrokers: ['servicebus'], beside: true }],
  ]);
  const segments = segmentsOf(files, needs);
  assert.deepEqual(segments, [
    { hold: [], files: ['c'] },
    { hold: ['kafka'], files: ['b', 'e'] },
    { hold: ['kafka', 'rabbitmq'], files: ['d'] },
    { hold: ['rabbitmq'], files: ['a'] },
    { hold: [], files: ['f', 'g'], beside: true },
  ]);
  assert.deepEqual(holdSteps(segments), [
    { start: [], stop: [] },
    { start: ['kafka'], stop: [] },
    { start: ['rabbitmq'], stop: ['kafka'] },
    { start: [], stop: ['rabbitmq'] },
    { start: [], stop: [] },
  ]);
});

test('a folder that would take more than its share is cut, the slow files first; the slowest processes start first', (t) => {
  const slow = timesFile(t, { 'test/workload/schedule.test.ts': 30_000, 'test/workload/skew.test.ts': 11_000, 'test/checker/order.property.test.ts': 5_000 });
  // The workload files (30 s, 11 s, the others unknown: 1 s each) and a 5 s file, at 3 at once.
  const w = (name: string) => `test/workload/${name}.test.ts`;
  const folder = readdirSync(join(ROOT, 'test/workload')).filter((f) => f.endsWith('.test.ts')).map((f) => `test/workload/${f}`);
  const ms = (f: string) => ({ [w('schedule')]: 30_000, [w('skew')]: 11_000, 'test/checker/order.property.test.ts': 5_000 })[f] ?? 1_000;
  const share = [...folder, 'test/checker/order.property.test.ts'].reduce((n, f) => n + ms(f), 0) / 3;
  const listed = runTests(['--list', 'test/workload/', 'test/checker/order.property'], slow);
  const [header, ...body] = listed.trimEnd().split('\n');
  assert.equal(header, '# phase 1: 3 at once');
  const groups = body.join('\n').split('\n\n').map((g) => g.split('\n'));
  // The slowest file alone, first; every file once; the folder cut into processes of at most its share.
  assert.deepEqual(groups[0], [w('schedule')]);
  assert.deepEqual(groups.flat().sort(), [...folder, 'test/checker/order.property.test.ts'].sort());
  assert.ok(groups.length > 2, listed);
  for (const g of groups.slice(1)) {
    const folderPart = g.filter((f) => f.startsWith('test/workload/'));
    assert.ok(folderPart.length <= 1 || folderPart.reduce((n, f) => n + ms(f), 0) <= share + 1_000, `a process over its share ${share} ms: ${g.join(', ')}`);
  }
  // The same times without the slow file's folder-mates to share with: nothing to cut below 10 s.
  const small = timesFile(t, { 'test/workload/schedule.test.ts': 6_000 });
  assert.equal(runTests(['--list', 'test/workload/schedule', 'test/workload/skew'], small), `# phase 1: 3 at once\n${w('schedule')}\n${w('skew')}\n`);
});

test('a run remembers each file\'s time, whether it ran alone or in its folder\'s process', (t) => {
  const file = timesFile(t);
  runTests(['test/workload/rng.test.ts', 'test/workload/keys.test.ts', 'test/checker/lanes.test.ts'], file);
  const times = JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
  assert.deepEqual(Object.keys(times).sort(), ['test/checker/lanes.test.ts', 'test/workload/keys.test.ts', 'test/workload/rng.test.ts']);
  for (const ms of Object.values(times)) assert.ok(Number.isInteger(ms) && ms >= 0, String(ms));
  // A second run averages with the first: a new time moves the plan half way.
  writeFileSync(file, JSON.stringify({ ...times, 'test/checker/lanes.test.ts': 1_000_000 }));
  runTests(['test/checker/lanes.test.ts'], file);
  const again = JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
  assert.ok(again['test/checker/lanes.test.ts']! >= 500_000 && again['test/checker/lanes.test.ts']! < 510_000, String(again['test/checker/lanes.test.ts']));
  assert.equal(again['test/workload/rng.test.ts'], times['test/workload/rng.test.ts'], 'a file not run keeps its time');
});

test('a run ends with where its time went, whatever the result, and keeps it in the cache for the next', (t) => {
  const cache = mkdtempSync(join(tmpdir(), 'convoy-test-cache-'));
  t.after(() => rmSync(cache, { recursive: true, force: true }));
  const run = () => {
    const env: NodeJS.ProcessEnv = { ...process.env, CONVOY_CACHE: cache, CONVOY_TEST_TIMES: join(cache, 'times.json'), CONVOY_LAUNCHED_MS: String(Date.now() - 5_000), CONVOY_BOOTSTRAP_MS: '1200', CONVOY_SETUP_MS: '800' };
    delete env.NODE_TEST_CONTEXT;
    delete env.CONVOY_TEST_RECORD; // an outermost run, as ./convoy test starts it
    return spawnSync(process.execPath, [join(ROOT, 'bin', 'run-tests.js'), 'test/workload/rng.test.ts', 'test/workload/keys.test.ts'], { cwd: ROOT, encoding: 'utf8', env, timeout: 120_000 });
  };
  const first = run();
  assert.equal(first.status, 0, first.stderr);
  const summary = first.stdout.slice(first.stdout.indexOf('# timing:'));
  assert.match(summary, /^# timing: \d+ cores, load average [\d.]+ at the start, [\d.]+ at the end$/m);
  assert.match(summary, /^#   bootstrap \(npm packages\) +1\.2 s$/m);
  assert.match(summary, /^#   set-up \(packages, jars\) +0\.8 s$/m);
  assert.match(summary, /^#   phase 1, no broker \(2 files\) +[\d.]+ s +\d+% of its 120 s; host CPU \d+% busy, [\d.]+ s of CPU$/m);
  assert.match(summary, /^#   in all, from \.\/convoy test +[\d.]+ s +\d+% of its 1,500 s$/m);
  assert.match(summary, /^#   slowest files:\n# +[\d.]+ s  test\/workload\/(rng|keys)\.test\.ts\n# +[\d.]+ s  test\/workload\/(rng|keys)\.test\.ts$/m);
  assert.match(first.stdout, /^\d+ passed, 0 failed$/m, 'the whole run\'s closing line');
  const history = readFileSync(join(cache, 'test-runs.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(history.length, 1);
  assert.deepEqual(history[0].phases.map((p: { kind: string; files: number }) => [p.kind, p.files]), [['unit', 2]]);
  assert.ok(history[0].counts.pass > 0 && history[0].counts.fail === 0);
  // The next run names this one's time beside its own.
  const second = run();
  assert.match(second.stdout, /^#   phase 1, no broker \(2 files\) .*; last run [\d.]+ s$/m);
  assert.equal(readFileSync(join(cache, 'test-runs.jsonl'), 'utf8').trim().split('\n').length, 2);
  // A run that a test starts inside another (its record in the environment) keeps no history and
  // claims none of the outer run's launch figures.
  const env: NodeJS.ProcessEnv = { ...process.env, CONVOY_CACHE: cache, CONVOY_TEST_TIMES: join(cache, 'times.json'), CONVOY_LAUNCHED_MS: '1', CONVOY_TEST_RECORD: join(cache, 'outer.jsonl') };
  delete env.NODE_TEST_CONTEXT;
  const inner = spawnSync(process.execPath, [join(ROOT, 'bin', 'run-tests.js'), 'test/workload/rng.test.ts'], { cwd: ROOT, encoding: 'utf8', env, timeout: 120_000 });
  assert.equal(inner.status, 0, inner.stderr);
  assert.doesNotMatch(inner.stdout, /in all, from/);
  assert.equal(readFileSync(join(cache, 'test-runs.jsonl'), 'utf8').trim().split('\n').length, 2);
});
