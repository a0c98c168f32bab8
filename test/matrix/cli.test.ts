/**
 * `convoy matrix` end to end through the CLI on the memory broker (a test double inside the
 * runner: a few seconds a run, no broker process): a matrix runs and its comparison holds;
 * one interrupted after its first run and resumed gives the same comparison as one run
 * without a break (same plan, cells, seeds and findings); bad input exits 2 before any run.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convoy, ROOT } from '../runner/helpers.ts';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { MatrixComparison } from '../../harness/matrix/compare.ts';
import { KAFKA_CLIENTS } from '../../brokers/kafka/client-defaults.ts';

const MATRIX = join(ROOT, 'test/matrix/fixtures/memory-modes.yaml');

function matrixDir(results: string): string {
  const dirs = readdirSync(results).filter((d) => d.startsWith('matrix-'));
  assert.equal(dirs.length, 1, dirs.join(', '));
  return join(results, dirs[0]);
}

/** What must not depend on whether the matrix was interrupted: plan, seeds and findings. */
function essence(c: MatrixComparison): unknown {
  return {
    verdict: c.verdict.status, runsDone: c.runsDone,
    cells: c.cells.map((cell) => ({
      id: cell.id, known: cell.known, unknown: cell.unknown,
      runs: cell.runs.map((r) => [r.slot, r.repeat, r.seed]),
      appeared: Object.fromEntries(Object.entries(cell.anomalies).map(([t, a]) => [t, a.appeared])),
      intervals: cell.anomalies.reorder.interval,
    })),
    expectations: c.expectations.map((e) => [e.anomaly, e.status, e.appeared, e.known]),
  };
}

/** The fixture matrix, sent `signal` 1.5 s into its second run. */
async function signalledInSecondRun(signal: NodeJS.Signals): Promise<{ results: string; first: Awaited<ReturnType<typeof convoy>> }> {
  const results = mkdtempSync(join(tmpdir(), 'convoy-matrix-signal-'));
  let sent = false;
  const first = await convoy(['matrix', MATRIX, '--results', results, '--quiet'], {
    timeoutMs: 180_000,
    onStderr: (chunk, child) => {
      if (!sent && /\[2\/4\]/.test(chunk)) {
        sent = true;
        setTimeout(() => child.kill(signal), 1500);
      }
    },
  });
  return { results, first };
}

describe('convoy matrix on the memory broker', { concurrency: 2 }, () => {
  let whole: MatrixComparison | undefined;
  let resumed: MatrixComparison | undefined;
  const both = () => {
    if (whole && resumed) assert.deepEqual(essence(resumed), essence(whole));
  };

  test('runs every cell, writes matrix.json, matrix.html and matrix.md, exit 0 when the expectations across cells hold', async () => {
    const results = mkdtempSync(join(tmpdir(), 'convoy-matrix-cli-'));
    const r = await convoy(['matrix', MATRIX, '--results', results, '--quiet'], { timeoutMs: 180_000 });
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    const dir = matrixDir(results);
    whole = JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as MatrixComparison;
    assert.equal(whole.schema, 'convoy.matrix.v1');
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(join(ROOT, 'results/schema/matrix.v1.json'), 'utf8')) as object);
    assert.ok(validate(whole), JSON.stringify(validate.errors));
    assert.equal(whole.runsDone, 4);
    const unordered = whole.cells.find((c) => c.id === 'unordered')!;
    const partition = whole.cells.find((c) => c.id === 'partition')!;
    assert.equal(unordered.anomalies.reorder.appeared, 2);
    assert.equal(partition.anomalies.reorder.appeared, 0);
    assert.ok((unordered.latency.endToEnd?.count ?? 0) > 0);
    assert.deepEqual(whole.expectations.map((e) => e.status), ['held', 'held']);
    // Each run is a normal run folder: result.json and its report.
    for (const cell of whole.cells) for (const run of cell.runs) {
      assert.ok(existsSync(join(dir, run.dir, 'result.json')));
      assert.ok(existsSync(join(dir, run.dir, 'report.html')));
    }
    assert.match(readFileSync(join(dir, 'matrix.md'), 'utf8'), /\| mode=unordered \| 2 \| 2\/2 100% \[34%–100%\]/);
    assert.match(readFileSync(join(dir, 'matrix.html'), 'utf8'), /<script type="application\/json" id="convoy-data">/);
    assert.match(r.stdout, /### convoy matrix memory-modes: pass/);
    // The comparison again, from the run folders alone: the same figures.
    // With --json: stdout is one document, matrix.json (the cells' table as data) inside it.
    const again = await convoy(['matrix', '--compare', dir, '--json'], { timeoutMs: 60_000 });
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')), whole);
    const doc = JSON.parse(again.stdout);
    assert.equal(again.stdout, `${JSON.stringify(doc, null, 2)}\n`, 'stdout carries the document and nothing else');
    assert.deepEqual([doc.command, doc.verdict, doc.exitCode, doc.dir], ['matrix', 'pass', 0, dir]);
    assert.deepEqual(doc.comparison, whole);
    assert.match(again.stderr, /### convoy matrix memory-modes: pass/, 'the table goes to stderr');
    // The dashboard groups the matrix's runs under it and links its comparison.
    const dash = await convoy(['dashboard', results], { timeoutMs: 60_000 });
    assert.equal(dash.code, 0, dash.stderr);
    const index = readFileSync(join(results, 'dashboard', 'index.html'), 'utf8');
    const folder = dir.split('/').pop()!;
    assert.match(index, new RegExp(`<li class="matrix" data-matrix="${folder}"><a href="${folder}.html">memory-modes</a> <span class="verdict-cell pass">pass</span>`));
    assert.equal((index.match(/class="chip verdict-pass"/g) ?? []).length, 4);
    assert.doesNotMatch(index.split('id="runs"')[1], /class="run"/, 'the matrix runs are not listed again one by one');
    assert.ok(existsSync(join(results, 'dashboard', `${folder}.html`)));
    const firstRun = whole.cells[0].runs[0].runId;
    assert.ok(existsSync(join(results, 'dashboard', 'runs', firstRun, 'report.html')), 'the comparison page\'s run links resolve in the dashboard');
    both();
  });

  test('interrupted after its first run, then --resume: the same comparison as without a break', async () => {
    // Ctrl-C while the second run is in progress (the user's interrupt, not a kill).
    const { results, first } = await signalledInSecondRun('SIGINT');
    assert.equal(first.code, 3, `${first.stdout}\n${first.stderr}`);
    assert.match(first.stderr, /continue with convoy matrix --resume /);
    const dir = matrixDir(results);
    const partial = JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as MatrixComparison;
    assert.equal(partial.complete, false);
    assert.equal(partial.runsDone, 1);
    assert.equal(readdirSync(join(dir, 'runs')).length, 2, 'the cut-short run left its folder');
    const second = await convoy(['matrix', '--resume', dir, '--quiet'], { timeoutMs: 180_000 });
    assert.equal(second.code, 0, `${second.stdout}\n${second.stderr}`);
    assert.match(second.stderr, /cut short earlier; removed, its run goes again/);
    assert.match(second.stderr, /resuming: 1 of 4 runs done, 3 to go/);
    assert.equal(readdirSync(join(dir, 'runs')).length, 4);
    resumed = JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as MatrixComparison;
    assert.equal(resumed.runsDone, 4);
    both();
  });
});

test('killed with -9 in its second run (a CI timeout): --resume removes that run\'s folder and runs it again', async () => {
  const { results, first } = await signalledInSecondRun('SIGKILL');
  assert.equal(first.code, null, 'killed');
  const dir = matrixDir(results);
  assert.equal(readFileSync(join(dir, 'runs.jsonl'), 'utf8').trim().split('\n').length, 1);
  const second = await convoy(['matrix', '--resume', dir, '--quiet'], { timeoutMs: 180_000 });
  assert.equal(second.code, 0, `${second.stdout}\n${second.stderr}`);
  assert.match(second.stderr, /cut short earlier; removed, its run goes again/);
  const c = JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as MatrixComparison;
  assert.equal(c.runsDone, 4);
  assert.deepEqual(c.cells.map((cell) => cell.runs.map((r) => r.slot)), [[1, 3], [0, 2]]);
});

test('bad input: a path not in the schema and a refused value, named with their cells, exit 2, nothing run', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-matrix-bad-'));
  const file = join(dir, 'bad.yaml');
  writeFileSync(file, `name: bad
scenario: ${join(ROOT, 'test/matrix/fixtures/memory-modes.yaml').replace(/memory-modes.yaml$/, 'base-memory.yaml')}
vary:
  consumers.concurrency.mode: [partition, sideways]
  consumers.handler.meanMz: [5]
`);
  const results = join(dir, 'results');
  const r = await convoy(['matrix', file, '--results', results], { timeoutMs: 60_000 });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /cell mode=sideways, meanMz=5: consumers\.concurrency\.mode: expected one of partition, batch, conflate, key, unordered; got "sideways"/);
  // A mistake every cell has is said once, at the line that made it.
  assert.match(r.stderr, /bad\.yaml:5:30: every cell: consumers\.handler\.meanMz: unknown property/);
  assert.equal(r.stderr.split('\n').filter((l) => l.includes('meanMz: unknown')).length, 1);
  assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/, 'no stack trace');
  assert.ok(!existsSync(results), 'nothing was started or written');
  const help = await convoy(['matrix', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /vary:/);
  assert.match(help.stdout, /--resume <dir>/);
});

test('--dry-run checks every cell and prints the plan; --repeat (and its older name --repeats) and --set change it; nothing runs', async () => {
  const example = join(ROOT, 'workloads/matrix/kafka-client-x-concurrency.yaml');
  const full = await convoy(['matrix', example, '--dry-run'], { timeoutMs: 60_000 });
  assert.equal(full.code, 0, full.stderr);
  // Every Kafka client x three concurrency modes.
  const n = KAFKA_CLIENTS.length * 3;
  assert.match(full.stdout, new RegExp(`${n} cells x 5 repeats = ${n * 5} runs`));
  const smoke = await convoy(['matrix', example, '--dry-run', '--repeat', '1', '--set', 'workload.durationMs=3s'], { timeoutMs: 60_000 });
  assert.equal(smoke.code, 0, smoke.stderr);
  assert.match(smoke.stdout, new RegExp(`${n} cells x 1 repeats = ${n} runs`));
  const older = await convoy(['matrix', example, '--dry-run', '--repeats', '2'], { timeoutMs: 60_000 });
  assert.match(older.stdout, new RegExp(`${n} cells x 2 repeats = ${n * 2} runs`));
  const bad = await convoy(['matrix', example, '--dry-run', '--set', 'workload.durationMs=soon'], { timeoutMs: 60_000 });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--set workload\.durationMs=soon: every cell: workload\.durationMs: /);
});
