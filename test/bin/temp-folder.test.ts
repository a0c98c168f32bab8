/**
 * bin/run-tests.js gives the run one temporary folder (TMPDIR for every test and process) and
 * removes it when the tests pass, so tests that leave folders behind leave nothing in the
 * machine's /tmp. Driven through the runner itself on a real test file that does leave folders
 * (test/checker/history-version.test.ts), with a private base folder as the machine's /tmp.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../runner/helpers.ts';

const LEAVES_FOLDERS = 'test/checker/history-version.test.ts';

/** This process's environment with TMPDIR set, without node's runner's own context (a nested
 * `node --test` that inherits it reports to this runner instead of running its files). */
function envWith(tmp: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

/** tsx's own cache (<tmpdir>/tsx-<uid>): kept between runs on purpose. */
const TSX_CACHE = `tsx-${process.geteuid!()}`;

function runTests(base: string, args: string[]) {
  return spawnSync(process.execPath, [join(ROOT, 'bin', 'run-tests.js'), ...args], { cwd: ROOT, encoding: 'utf8', env: envWith(base), timeout: 120_000 });
}

test('a passing run leaves nothing in the temporary folder, though its test does not clean up', (t) => {
  const base = mkdtempSync(join(tmpdir(), 'convoy-tests-base-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  // The file on its own, straight under node's runner, does leave folders in TMPDIR.
  const alone = mkdtempSync(join(base, 'alone-'));
  const direct = spawnSync(process.execPath, ['--import', 'tsx/esm', '--test', LEAVES_FOLDERS], { cwd: ROOT, encoding: 'utf8', env: envWith(alone), timeout: 120_000 });
  assert.equal(direct.status, 0, direct.stdout + direct.stderr);
  assert.ok(readdirSync(alone).some((n) => n.startsWith('convoy-history-version-')), readdirSync(alone).join(', '));
  rmSync(alone, { recursive: true, force: true });

  const r = runTests(base, [LEAVES_FOLDERS]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /# pass [1-9]/, 'its tests ran');
  // Nothing but tsx's cache, which holds what the run compiled: the next run compiles nothing again.
  assert.deepEqual(readdirSync(base), [TSX_CACHE]);
  assert.ok(readdirSync(join(base, TSX_CACHE)).length > 0, 'the run compiled into the machine\'s tsx cache');
});

test('a folder kept by an earlier failed run whose process is gone is removed at the next start', (t) => {
  const base = mkdtempSync(join(tmpdir(), 'convoy-tests-base-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const failed = runTests(base, ['no-such-test-file-matches-this']);
  // No file matched: exit 1 before any test, and nothing was made.
  assert.equal(failed.status, 1);
  assert.deepEqual(readdirSync(base), []);
  // A folder left by a run that failed, whose process is gone (a pid above the kernel's limit: never alive).
  const kept = join(base, 'convoy-tests-999999999-abcdef');
  mkdirSync(join(kept, 'convoy-history-version-x'), { recursive: true });
  const r = runTests(base, ['test/workload/rng.test.ts']);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /# pass [1-9]/, 'its tests ran');
  assert.deepEqual(readdirSync(base), [TSX_CACHE], 'the earlier run\'s folder was removed');
});
