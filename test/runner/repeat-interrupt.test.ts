/**
 * Regression: Ctrl-C during `convoy run --repeat N` ended only the run it came in, and the next
 * repetition started. The repetition now stops after an interrupted run: it is kept (unknown),
 * no further run starts, and the exit code is 3.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runAndAnalyze, type RunCommandOptions } from '../../harness/runner/run-and-analyze.ts';
import type { Scenario } from '../../harness/spec/types.ts';
import { EXIT } from '../../harness/errors.ts';

test('an interrupted run ends the repetition: no further run starts, exit 3', async () => {
  let runs = 0;
  const stderr: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  const out = process.stdout.write.bind(process.stdout);
  (process.stderr as { write: unknown }).write = (s: string) => (stderr.push(String(s)), true);
  (process.stdout as { write: unknown }).write = () => true;
  try {
    const code = await runAndAnalyze({ name: 's' } as Scenario, { repeat: 3, quiet: true } as RunCommandOptions, async () => {
      runs++;
      // What an interrupted run comes back as: unknown, flagged interrupted.
      const result = { runId: `r${runs}`, scenario: { name: 's' }, verdict: { status: 'unknown', reasons: ['interrupted (Ctrl-C)'] }, harness: { failure: { stage: 'setup' } }, expectations: [] };
      return { result: result as never, runDir: `/tmp/r${runs}`, code: EXIT.infrastructure, interrupted: runs === 1 };
    });
    assert.equal(runs, 1);
    assert.equal(code, EXIT.infrastructure);
    assert.match(stderr.join(''), /interrupted: 1 of 3 runs done; not starting the rest/);
  } finally {
    (process.stderr as { write: unknown }).write = write;
    (process.stdout as { write: unknown }).write = out;
  }
});
