// @needs go
/**
 * The nightly workflow: actionlint (built with go install into convoy's cache, once) finds
 * nothing in it, and it runs the one script CI here runs too, on the Node convoy selects.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../../harness/runtime/cache.ts';
import { requireTool } from '../../harness/runtime/requirements.ts';
import { GO } from '../../harness/runtime/requirements.ts';
// @ts-expect-error: a plain JavaScript module of bin/ (it runs before TypeScript can), untyped
import { supported } from '../../bin/node-guard.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const ACTIONLINT = 'v1.7.12';
const WORKFLOW = join(ROOT, '.github/workflows/nightly.yml');

function actionlint(): string {
  const dir = cacheDir('tools', `actionlint-${ACTIONLINT}`);
  const bin = join(dir, 'actionlint');
  if (existsSync(bin)) return bin;
  const go = requireTool(GO, 'to build actionlint');
  const r = spawnSync(go, ['install', `github.com/rhysd/actionlint/cmd/actionlint@${ACTIONLINT}`], { encoding: 'utf8', env: { ...process.env, GOBIN: dir, CGO_ENABLED: '0' }, timeout: 600_000 });
  assert.equal(r.status, 0, `go install actionlint: ${r.stderr}`);
  return bin;
}

test('actionlint finds nothing in the nightly workflow', () => {
  const r = spawnSync(actionlint(), ['-no-color', WORKFLOW], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  // It does lint: a planted mistake is found.
  const bad = spawnSync(actionlint(), ['-no-color', '-'], { input: readFileSync(WORKFLOW, 'utf8').replace('runs-on: ubuntu-24.04', 'runs-on: ubuntu-24.04\n    timeout-minutes: soon'), encoding: 'utf8', timeout: 60_000 });
  assert.notEqual(bad.status, 0);
  assert.match(bad.stdout, /timeout-minutes/);
});

test('the workflow and CI here run one script, on the Node in .node-version', () => {
  const workflow = readFileSync(WORKFLOW, 'utf8');
  assert.match(workflow, /^\s+bin\/ci-nightly\.sh workloads\/nightly results$/m);
  // The matrices the nightly runs are files of the project.
  const matrices = /bin\/ci-nightly\.sh --matrix \S+ (.+)$/m.exec(workflow)![1]!.split(' ');
  assert.ok(matrices.length >= 2);
  for (const m of matrices) assert.ok(existsSync(join(ROOT, m)), m);
  assert.match(workflow, /node-version-file: \.node-version/);
  assert.match(workflow, /uses: actions\/setup-go@/);
  assert.match(readFileSync(join(ROOT, '.ci/run'), 'utf8'), /^bin\/ci-nightly\.sh workloads\/ci /m);
  // The suite runs in shards 1..n, each told its own and the count from the one list.
  const shards = JSON.parse(/^\s+shard: (\[.*\])$/m.exec(workflow)![1]!) as number[];
  assert.deepEqual(shards, shards.map((_, i) => i + 1));
  assert.match(workflow, /^\s+CONVOY_SUITE_SHARD: \$\{\{ matrix\.shard \}\}\/\$\{\{ strategy\.job-total \}\}$/m);
  assert.match(workflow, /pattern: nightly-results-\*/);
  assert.match(workflow, /^\s+run: \.\/convoy dashboard results$/m);
});

test('the workflow tests every supported Node line, from the lowest engines.node allows to .node-version\'s', () => {
  const workflow = readFileSync(WORKFLOW, 'utf8');
  const lines = JSON.parse(/^\s+node: (\[.*\])$/m.exec(workflow)![1]!.replace(/'/g, '"')).map(Number);
  const lowest = Number(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node.replace(/^>=/, '').split('.')[0]);
  const fetched = Number(readFileSync(join(ROOT, '.node-version'), 'utf8').trim().split('.')[0]);
  const even = (from: number, to: number) => Array.from({ length: (to - from) / 2 + 1 }, (_, i) => from + 2 * i);
  assert.deepEqual(lines, even(lowest, fetched), 'the LTS lines between engines.node and .node-version');
  assert.match(workflow, /^\s+run: \.\/convoy test$/m);
  // These tests themselves run on a supported Node (./convoy chose it).
  assert.ok(supported(), `this Node ${process.version} is a supported one`);
});
