import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runHere } from '../../brokers/memory/test/run-here.ts';

// Regression: the achieved rate was taken over durationMs even when `messages` ended the plan
// sooner, so a run that kept its rate for the whole plan read as "could not keep the target
// rate" (an orders twin: 1200 messages at 200/s with durationMs 10 s read 100/s).
test('a plan ended by `messages` before durationMs is rated over its own length, not durationMs', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-messages-rate-'));
  const file = join(dir, 'short-plan.yaml');
  writeFileSync(
    file,
    [
      'broker: { kind: memory, mode: partitioned, partitions: 2 }',
      // 150 messages at 100/s end 1.5 s in (1 s measured); durationMs alone would be 10 s.
      'workload: { keys: { count: 5 }, rate: { kind: fixed, perSecond: 100 }, durationMs: 10s, messages: 150, warmupMs: 500ms }',
      'consumers: { processes: 1 }',
    ].join('\n'),
  );
  // The runner in this process, as `convoy run` runs it (brokers/memory/test/run-here.ts).
  const { runDir } = await runHere(file);
  const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as { verdict: { status: string; reasons: string[] }; workload: { achievedRate: number } };
  assert.ok(!result.verdict.reasons.some((x) => /reached \d+\/s of 100\/s/.test(x)), result.verdict.reasons.join('; '));
  assert.ok(result.workload.achievedRate > 80, `achieved ${result.workload.achievedRate}/s`);
  // What `convoy run` exits 0 on.
  assert.equal(result.verdict.status, 'pass', result.verdict.reasons.join('; '));
});
