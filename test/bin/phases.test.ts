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
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../runner/helpers.ts';

function runTests(args: string[], times: string, concurrency = '3') {
  const env: NodeJS.ProcessEnv = { ...process.env, CONVOY_TEST_TIMES: times, CONVOY_TEST_CONCURRENCY: concurrency };
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

test('the tests that need no broker run first and several at once; those that start brokers after, one at a time', (t) => {
  const none = timesFile(t);
  // Filters in the opposite order to the phases: the order comes from the kind, not the filter.
  assert.equal(runTests(['--list', 'test/faults/kafka-faults.test.ts', 'test/workload/rng.test.ts', 'test/checker/order.property.test.ts'], none), [
    '# phase 1: 3 at once', 'test/checker/order.property.test.ts', '', 'test/workload/rng.test.ts',
    '# phase 2: 1 at once', 'test/faults/kafka-faults.test.ts', '',
  ].join('\n'));
  assert.equal(runTests(['--list', 'test/faults/kafka-faults.test.ts'], none), '# phase 1: 1 at once\ntest/faults/kafka-faults.test.ts\n');
  const unit = runTests(['--list', '--unit'], none);
  assert.equal(unit.match(/^# phase/gm)?.length, 1);
  assert.match(unit, /^# phase 1: 3 at once\n/);
  assert.doesNotMatch(unit, /kafka-faults|^brokers\/kafka\//m);
  assert.match(unit, /^brokers\/memory\/test\//m, 'the in-process broker\'s tests are unit tests');
});

test('a folder that would take more than its share is cut, the slow files first; the slowest processes start first', (t) => {
  const slow = timesFile(t, { 'test/workload/schedule.test.ts': 30_000, 'test/workload/skew.test.ts': 11_000, 'test/checker/order.property.test.ts': 5_000 });
  // 8 workload files (30 s, 11 s, and six unknown, 1 s each) and a 5 s file: 52 s, a share of 17.3 s at 3 at once.
  const w = (name: string) => `test/workload/${name}.test.ts`;
  assert.equal(runTests(['--list', 'test/workload/', 'test/checker/order.property'], slow), [
    '# phase 1: 3 at once', w('schedule'), '', w('changes'), w('codec'), w('entity'), w('keys'), w('rng'), w('skew'), w('split'), '', 'test/checker/order.property.test.ts', '',
  ].join('\n'));
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
