/**
 * Real runs on the memory broker, end to end through the CLI: the runner, worker processes,
 * the fault timeline (stall, kill-consumer, add-partitions), concurrency modes, a poison
 * policy and the checker, in seconds and with no broker process (three runs at a time:
 * they mostly wait on their schedules). Each scenario (scenarios/)
 * states what it must show; exit 0 means every expectation held.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convoy } from '../../../test/runner/helpers.ts';

const SCENARIOS = new URL('./scenarios/', import.meta.url).pathname;

describe('runs on the memory broker', { concurrency: 3 }, () => {
  for (const file of readdirSync(SCENARIOS).filter((f) => f.endsWith('.yaml')).sort()) {
    test(file, async () => {
      const results = mkdtempSync(join(tmpdir(), 'convoy-memory-run-'));
      const r = await convoy(['run', join(SCENARIOS, file), '--results', results, '--quiet'], { timeoutMs: 90_000 });
      assert.equal(r.code, 0, `${file}: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
      const [runId] = readdirSync(results);
      const result = JSON.parse(readFileSync(join(results, runId!, 'result.json'), 'utf8')) as {
        verdict: { status: string };
        environment: { emulator: { notes: string } | null };
        workload: { sent: number };
      };
      assert.equal(result.verdict.status, 'pass');
      assert.ok(result.workload.sent > 0);
      // The result says what the broker was: a test double.
      assert.match(result.environment.emulator?.notes ?? '', /test double/);
    });
  }
});
