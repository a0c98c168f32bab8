/**
 * bin/run-tests.js plans the unit tier's processes from the last run's times (kept by
 * bin/file-times.js in the cache): a file that took 5 s or more runs in a process of its own,
 * the processes start longest first; without times, a folder to a process in path order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../runner/helpers.ts';

const RUN_TESTS = join(ROOT, 'bin', 'run-tests.js');

function runTests(args: string[], cache: string): { status: number | null; stdout: string; stderr: string } {
  // Not a child of this test run: node's runner reads NODE_TEST_CONTEXT to tell.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  return spawnSync(process.execPath, [RUN_TESTS, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...env, CONVOY_CACHE: cache, CONVOY_TEST_CONCURRENCY: '4', CONVOY_COMPILED: '0' } });
}

const lines = (out: string) => out.trim().split('\n').map((l) => l.split(' '));

test('without times, a folder to a process in path order; with them, slow files alone and longest first', () => {
  const cache = mkdtempSync(join(tmpdir(), 'convoy-plan-'));
  const before = runTests(['--plan', '--unit', 'test/workload/', 'test/checker/'], cache);
  assert.equal(before.status, 0, before.stderr);
  const folders = lines(before.stdout);
  assert.equal(folders.length, 2);
  assert.ok(folders[0]!.every((f) => f.startsWith('test/checker/')) && folders[1]!.every((f) => f.startsWith('test/workload/')), before.stdout);
  assert.ok(folders[1]!.includes('test/workload/skew.test.ts'));

  writeFileSync(join(cache, 'test-times.json'), JSON.stringify({ 'test/workload/skew.test.ts': 9, 'test/checker/golden.test.ts': 2, 'test/workload/codec.test.ts': 0.5 }));
  const after = lines(runTests(['--plan', '--unit', 'test/workload/', 'test/checker/'], cache).stdout);
  assert.deepEqual(after[0], ['test/workload/skew.test.ts'], 'the slow file alone, first');
  assert.ok(after[1]!.includes('test/checker/golden.test.ts'), 'then the folder of 2 s');
  assert.ok(after[2]!.includes('test/workload/codec.test.ts') && !after[2]!.includes('test/workload/skew.test.ts'));
  assert.equal(after.length, 3);
});

test('a run keeps each file\'s time in the cache, for files run alone and files sharing a process', () => {
  const cache = mkdtempSync(join(tmpdir(), 'convoy-plan-'));
  const r = runTests(['--unit', 'test/workload/skew', 'test/workload/codec', 'test/harness/clock'], cache);
  assert.equal(r.status, 0, r.stdout.slice(-2000));
  const known = JSON.parse(readFileSync(join(cache, 'test-times.json'), 'utf8')) as Record<string, number>;
  assert.deepEqual(Object.keys(known).sort(), ['test/harness/clock.test.ts', 'test/workload/codec.test.ts', 'test/workload/skew.test.ts']);
  for (const s of Object.values(known)) assert.ok(s >= 0 && s < 120, String(s));
});
