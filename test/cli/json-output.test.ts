/**
 * `--json` on run, suite and matrix: stdout is one JSON document and nothing else (its text is
 * exactly the document, pretty-printed), progress and summaries go to stderr, the exit code is
 * the one without --json and the document says it. On the memory broker (a test double inside
 * the runner): three short runs in all, the commands side by side.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convoy, ROOT, type CliRun } from '../runner/helpers.ts';

const SCENARIO = (expect: string) =>
  [
    'broker: { kind: memory, mode: partitioned, partitions: 2 }',
    'workload: { keys: { count: 4 }, rate: { kind: fixed, perSecond: 100 }, durationMs: 1s, warmupMs: 200ms }',
    'consumers: { processes: 1, concurrency: { mode: partition, workers: 2 }, handler: { kind: exponential, meanMs: 2 } }',
    `expect: ${expect}`,
  ].join('\n');

/** stdout parsed, after checking it is the document alone. */
function documentOf(r: CliRun): any {
  const doc = JSON.parse(r.stdout);
  assert.equal(r.stdout, `${JSON.stringify(doc, null, 2)}\n`, 'stdout carries the document and nothing else');
  assert.equal(doc.exitCode, r.code, 'the document says the exit code the command gave');
  return doc;
}

test('run, suite and matrix --json: one document on stdout, the rest on stderr, exit codes as without it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-json-'));
  // Partition mode keeps each key in order: an expected reorder fails, twice (exit 1).
  writeFileSync(join(dir, 'fails.yaml'), SCENARIO('{ reorder: ">0" }'));
  const suite = join(dir, 'suite');
  mkdirSync(suite);
  writeFileSync(join(suite, 'a-holds.yaml'), SCENARIO('{ reorder: 0 }'));
  writeFileSync(join(suite, 'b-typo.yaml'), SCENARIO('{ reorder: 0 }').replace('partitions: 2', 'partitions: 2, partitons: 3'));

  const [run, suiteRun, dry, bad] = await Promise.all([
    convoy(['run', join(dir, 'fails.yaml'), '--repeat', '2', '--json', '--results', join(dir, 'runs')], { timeoutMs: 120_000 }),
    convoy(['suite', suite, '--json', '--results', join(dir, 'suite-results')], { timeoutMs: 120_000 }),
    convoy(['matrix', join(ROOT, 'test/matrix/fixtures/memory-modes.yaml'), '--dry-run', '--json'], { timeoutMs: 60_000 }),
    convoy(['run', join(dir, 'missing.yaml'), '--json'], { timeoutMs: 60_000 }),
  ]);

  // run: both runs' folders and result.json as written, the worst verdict, the runs together.
  assert.equal(run.code, 1, run.stderr);
  const r = documentOf(run);
  assert.equal(r.command, 'run');
  assert.equal(r.verdict, 'fail');
  assert.equal(r.runs.length, 2);
  for (const one of r.runs) {
    assert.equal(one.verdict, 'fail');
    assert.deepEqual(one.result, JSON.parse(readFileSync(join(one.runDir, 'result.json'), 'utf8')));
    assert.equal(one.result.expectations.find((e: any) => e.type === 'reorder').held, false);
  }
  assert.deepEqual([r.aggregate.runs, r.aggregate.pass, r.aggregate.fail, r.aggregate.unknown], [2, 0, 2, 0]);
  assert.deepEqual(r.aggregate.expectations.find((e: any) => e.label === 'reorder >0'), { label: 'reorder >0', held: 0, of: 2, flakeRate: 1 });
  assert.match(run.stderr, /: FAIL /, 'the human summary goes to stderr');
  assert.match(run.stderr, /2 runs: 0 pass, 2 fail/);

  // suite: each scenario's verdict and folder (or why it has none), totals; exit the worst (2).
  assert.equal(suiteRun.code, 2, suiteRun.stderr);
  const s = documentOf(suiteRun);
  assert.equal(s.command, 'suite');
  assert.deepEqual(s.scenarios.map((x: any) => [x.scenario, x.status, x.exitCode]), [['a-holds', 'pass', 0], ['b-typo.yaml', 'not loaded', 2]]);
  assert.ok(existsSync(join(s.scenarios[0].runDir, 'result.json')));
  assert.match(s.scenarios[1].error, /partitons/);
  assert.deepEqual(s.totals, { scenarios: 2, pass: 1, fail: 0, unknown: 0, notLoaded: 1, broken: 0 });
  assert.ok(existsSync(s.dashboard.index));
  assert.match(suiteRun.stderr, /suite results/);

  // matrix --dry-run: the plan as data.
  assert.equal(dry.code, 0, dry.stderr);
  const m = documentOf(dry);
  assert.deepEqual(m.cells.map((c: any) => c.id), ['partition', 'unordered']);
  assert.equal(m.runs.length, 4);

  // Bad input: its line on stderr, nothing on stdout, exit 2.
  assert.equal(bad.code, 2);
  assert.equal(bad.stdout, '');
  assert.match(bad.stderr, /^convoy: .*missing\.yaml: cannot read/);
});
