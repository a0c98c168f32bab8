/**
 * A starved runner stops a memory-broker run as a whole (the broker and the owner service live in
 * it): a fault window it spent stalled was never exercised, and an expectation about that window
 * is then neither met nor missed. notification-owner-down failed this way on a loaded machine
 * (reorder 0 during the stall): such a run must end `unknown`, with the reason, never fail.
 * Here the runner's event loop is blocked on purpose for the whole stall window.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scenarioCatalogue } from '../../../harness/cli/catalogue.ts';
import { analyzeRun } from '../../../harness/runner/analyze.ts';
import { executeRun } from '../../../harness/runner/run.ts';
import { loadScenarioFile } from '../../../harness/scenario/load.ts';

const SCENARIO = new URL('./scenarios/notification-owner-down.yaml', import.meta.url).pathname;

test('a fault window the runner spent stalled makes the run unknown, not failed', { timeout: 120_000 }, async () => {
  const scenario = await loadScenarioFile(SCENARIO, { catalogue: await scenarioCatalogue(), target: { runtime: 'local', allowDestructive: false } });
  const stall = scenario.faults.find((f) => f.kind === 'stall')!;
  let blockedMs = 0;
  const record = await executeRun(scenario, {
    runtime: 'local', resultsDir: mkdtempSync(join(tmpdir(), 'convoy-runner-stall-')), keep: false, allowDestructive: false, progress: false,
    log: (line) => {
      if (line !== `fault ${stall.name} (stall) started`) return;
      // The runner cannot run for the whole window: no delivery, no owner answer, no fault end.
      const until = Date.now() + stall.durationMs + 200;
      while (Date.now() < until);
      blockedMs = stall.durationMs + 200;
    },
  });
  const result = await analyzeRun(record);
  assert.ok(blockedMs > 0, 'the stall fault started');
  const reasons = result.verdict.reasons.join('\n');
  assert.equal(result.verdict.status, 'unknown', reasons);
  assert.match(reasons, new RegExp(`runner's event loop stalled \\d+ ms of fault ${stall.name}'s \\d+ ms window`));
  // The other window (owner-down) ran with the runner free: it is not blamed on a stall.
  assert.doesNotMatch(reasons, /stalled \d+ ms of fault owner-down/);
});
