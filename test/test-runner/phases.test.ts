/**
 * bin/run-tests.js runs the tests that need no broker first, several processes at once, and the
 * tests that start real brokers after them, one at a time; `--list` prints that plan (the same
 * phases the run uses), so the plan is checked here without starting a broker.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../runner/helpers.ts';

function list(args: string[], concurrency?: string): string {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  if (concurrency) env.CONVOY_TEST_CONCURRENCY = concurrency;
  else delete env.CONVOY_TEST_CONCURRENCY;
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'run-tests.js'), '--list', ...args], { cwd: ROOT, encoding: 'utf8', env, timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

test('the tests that need no broker run first and several at once; those that start brokers after, one at a time', () => {
  // Filters in the opposite order to the phases: the order comes from the kind, not the filter.
  assert.equal(list(['test/faults/kafka-faults.test.ts', 'test/workload/rng.test.ts', 'test/checker/order.property.test.ts'], '3'), [
    '# phase 1: 3 at once', 'test/checker/order.property.test.ts', 'test/workload/rng.test.ts',
    '# phase 2: 1 at once', 'test/faults/kafka-faults.test.ts', '',
  ].join('\n'));
});

test('one kind only is one phase; --unit leaves out every test that starts brokers', () => {
  assert.equal(list(['test/faults/kafka-faults.test.ts'], '3'), '# phase 1: 1 at once\ntest/faults/kafka-faults.test.ts\n');
  const unit = list(['--unit'], '3');
  assert.equal(unit.match(/^# phase/gm)?.length, 1);
  assert.match(unit, /^# phase 1: 3 at once\n/);
  assert.doesNotMatch(unit, /kafka-faults|^brokers\/kafka\//m);
  assert.match(unit, /^brokers\/memory\/test\//m, 'the in-process broker\'s tests are unit tests');
});
