import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convoy, onlyRunDir } from './helpers.ts';

test('a run that cannot keep its target rate is unknown (exit 3), never a pass, and says why', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-rate-'));
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-rate-scenario-')), 'too-fast.yaml');
  // 50,000 msg/s with publisher confirms through a proxy on a 2-core machine: far beyond what
  // the broker and the harness can do, so the open-loop schedule falls behind.
  writeFileSync(file, `
name: too-fast
broker: { kind: rabbitmq, topology: hash-lanes, lanes: 2 }
workload:
  keys: { count: 100 }
  rate: { kind: fixed, perSecond: 50000 }
  messages: 20000
  warmupMs: 0s
consumers: { processes: 1, handler: { kind: constant, ms: 0 } }
run: { drainTimeoutMs: 30s }
`);
  const r = await convoy(['run', file, '--results', dir, '--quiet']);
  assert.equal(r.code, 3, r.stdout + r.stderr);
  const result = JSON.parse(readFileSync(join(onlyRunDir(dir), 'result.json'), 'utf8')) as Record<string, any>;
  assert.equal(result.verdict.status, 'unknown');
  assert.ok(result.verdict.reasons.some((x: string) => /could not keep the target rate/.test(x)), result.verdict.reasons.join("; "));
  // Coordinated omission is shown, not hidden: the delay is in the figures, and the achieved
  // rate is the real one.
  assert.ok(result.latency.whole.publishDelay.p99 > 100_000);
  assert.ok(result.workload.achievedRate < 45_000, `achieved ${result.workload.achievedRate}/s`);
});
