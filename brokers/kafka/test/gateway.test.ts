/**
 * The order service against a real Kafka node: the outbox with its relay killed
 * right after an acked batch, before the mark. The successor sends the batch again:
 * duplicates, and never a reorder or a duplicate version.
 */
// @needs kafka
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convoy, onlyRunDir } from '../../../test/runner/helpers.ts';

function runScenario(file: string) {
  const results = mkdtempSync(join(tmpdir(), 'convoy-kafka-gateway-'));
  return convoy(['run', file, '--results', results, '--quiet'], { timeoutMs: 300_000 }).then((r) => ({
    r,
    result: JSON.parse(readFileSync(join(onlyRunDir(results), 'result.json'), 'utf8')) as {
      verdict: { status: string; reasons: string[] };
      anomalies: Record<string, { count: number }>;
      gateway: { duplicateVersions: { count: number } | null; requests: { ok: number; failed: number }; http: Record<string, { latency: { count: number } }> };
      timeline: { faults: { name: string; evidence?: unknown; endEvidence?: unknown }[] };
    },
  }));
}

test('kafka outbox, relay killed after an acked batch: duplicates, no reorders, no duplicate versions', async () => {
  const { r, result } = await runScenario('workloads/producer-side/kafka-gateway-outbox-relay-kill.yaml');
  assert.ok(result.anomalies.duplicate!.count > 0, JSON.stringify(result.anomalies.duplicate));
  assert.equal(result.anomalies.reorder!.count, 0);
  assert.equal(result.gateway.duplicateVersions?.count, 0);
  assert.equal(result.gateway.requests.failed, 0);
  assert.ok(result.timeline.faults.some((f) => f.name === 'kill-relay-1' && f.endEvidence), JSON.stringify(result.timeline.faults));
  assert.equal(result.verdict.status, 'pass', result.verdict.reasons.join('; '));
  assert.equal(r.code, 0);
});
