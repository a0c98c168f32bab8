// @needs rabbitmq
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

test('a run far beyond the machine gives up early: producers stop, a brief drain, unknown with the reason, nothing called lost', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-giveup-'));
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-giveup-scenario-')), 'hopeless.yaml');
  // A million messages a second for a minute: the plan is 60M messages; without giving up the
  // run would grind on until maxDurationMs.
  writeFileSync(file, `
name: hopeless
broker: { kind: rabbitmq, topology: hash-lanes, lanes: 2 }
workload:
  keys: { count: 100 }
  rate: { kind: fixed, perSecond: 1000000 }
  durationMs: 60s
  warmupMs: 1s
consumers: { processes: 1, handler: { kind: constant, ms: 0 } }
run: { drainTimeoutMs: 30s, maxDurationMs: 3m }
`);
  const r = await convoy(['run', file, '--results', dir, '--quiet']);
  assert.equal(r.code, 3, r.stdout + r.stderr);
  const result = JSON.parse(readFileSync(join(onlyRunDir(dir), 'result.json'), 'utf8')) as Record<string, any>;
  assert.equal(result.verdict.status, 'unknown');
  assert.match(result.harness.gaveUp.reason, /^gave up early: .*cannot keep the target rate/);
  assert.ok(result.verdict.reasons.some((x: string) => x.startsWith('gave up early')), result.verdict.reasons.join('; '));
  assert.equal(result.harness.drain.endedBy === 'gave-up' || result.harness.drain.endedBy === 'processed' || result.harness.drain.endedBy === 'broker-empty', true, result.harness.drain.endedBy);
  // It stopped: a small part of the plan was sent.
  assert.ok(result.workload.sent < 60_000_000 / 20, `sent ${result.workload.sent}`);
  // What the broker still held is unseen, not lost.
  assert.equal(result.anomalies.lost.count, 0);
  assert.equal(result.check.remaining.known, true);
  assert.ok(!result.verdict.reasons.some((x: string) => /^lost: expected/.test(x)), result.verdict.reasons.join('; '));
  if (result.check.remaining.total > 0) assert.ok(result.anomalies.unseen.count > 0);
});
