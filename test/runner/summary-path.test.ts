/**
 * Regression: `convoy run --results /tmp/x/results` printed its run folder as
 * `../../tmp/x/results/<run-id>`. The summary shows it as the user gave `--results`: absolute
 * stays absolute, relative stays relative to the working directory. Cost: well under 0.1 s
 * (a stand-in run, nothing starts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { runAndAnalyze, type RunCommandOptions } from '../../harness/runner/run-and-analyze.ts';
import { shownRunDir } from '../../harness/runner/summary.ts';
import type { Scenario } from '../../harness/spec/types.ts';
import { EXIT } from '../../harness/errors.ts';

/** The summary's first line for one stand-in run in `resultsDir` (resolved, as `convoy run` does). */
async function summaryLine(resultsAsGiven: string): Promise<string> {
  const stdout: string[] = [];
  const out = process.stdout.write.bind(process.stdout);
  (process.stdout as { write: unknown }).write = (s: string) => (stdout.push(String(s)), true);
  try {
    const resultsDir = resolve(resultsAsGiven);
    await runAndAnalyze({ name: 's' } as Scenario, { repeat: 1, quiet: true, resultsDir, resultsAsGiven } as RunCommandOptions, async () => {
      const result = { runId: 'r1', scenario: { name: 's' }, verdict: { status: 'pass', reasons: [] }, expectations: [], workload: {}, latency: {} };
      return { result: result as never, runDir: join(resultsDir, 'r1'), code: EXIT.ok, interrupted: false };
    });
  } finally {
    (process.stdout as { write: unknown }).write = out;
  }
  return stdout.join('').split('\n').find((l) => l.startsWith('s: PASS'))!;
}

test('the run folder is printed as --results was given: absolute stays absolute, relative stays relative', async () => {
  assert.match(await summaryLine('/tmp/newcomer/results'), /\(\/tmp\/newcomer\/results\/r1\)$/);
  assert.match(await summaryLine('out/results'), /\(out\/results\/r1\)$/);
  assert.match(await summaryLine('../elsewhere'), /\(\.\.\/elsewhere\/r1\)$/);
});

test('without what was given, a folder outside the working directory is shown absolute', () => {
  assert.equal(shownRunDir('/nowhere-near/results/r1'), '/nowhere-near/results/r1');
  assert.equal(shownRunDir(join(process.cwd(), 'results', 'r1')), join('results', 'r1'));
});
