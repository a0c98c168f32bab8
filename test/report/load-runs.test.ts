import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRuns } from '../../harness/report/dashboard/load-runs.ts';

const EXAMPLE = new URL('../../examples/run/result.json', import.meta.url).pathname;

test('a dashboard walks the results folder: suite folders and matrices below it, nothing else', () => {
  const results = mkdtempSync(join(tmpdir(), 'convoy-load-runs-'));
  const run = (dir: string, runId: string) => {
    mkdirSync(dir, { recursive: true });
    const r = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as { runId: string };
    writeFileSync(join(dir, 'result.json'), JSON.stringify({ ...r, runId }));
  };
  run(join(results, 'top-run'), 'top-run');
  run(join(results, 'demo', 'demo-run'), 'demo-run');
  mkdirSync(join(results, 'nightly', 'matrix-a', 'runs'), { recursive: true });
  writeFileSync(join(results, 'nightly', 'matrix-a', 'plan.json'), '{}');
  run(join(results, 'nightly', 'matrix-a', 'runs', 'cell-run'), 'cell-run');
  // A dashboard written inside results/ holds reports, no results: not runs.
  mkdirSync(join(results, 'site', 'runs', 'top-run'), { recursive: true });
  writeFileSync(join(results, 'site', 'runs', 'top-run', 'report.html'), '<html></html>');
  cpSync(EXAMPLE, join(results, 'demo', 'not-a-folder.json'));
  const { runs, problems } = loadRuns(results);
  assert.deepEqual(problems, []);
  assert.deepEqual(runs.map((r) => [r.result.runId, r.matrix ?? null]).sort(), [['cell-run', 'nightly/matrix-a'], ['demo-run', null], ['top-run', null]]);
});
