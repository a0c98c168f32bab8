/**
 * Issue 4's properties on real brokers: each in-consumer concurrency mode's ordering on
 * Kafka, and open-loop timing (a stalled broker shows up as publish delay, in one run).
 */
// @needs kafka rabbitmq
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenarioFile } from '../../harness/scenario/load.ts';
import { runOnce } from '../../harness/runner/run-and-analyze.ts';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';
import { ROOT } from './helpers.ts';

const results = mkdtempSync(join(tmpdir(), 'convoy-modes-'));

async function run(file: string) {
  const scenario = await loadScenarioFile(file, { catalogue: await scenarioCatalogue(), onWarning: () => {} });
  const { result } = await runOnce(scenario, { runtime: 'local', resultsDir: results, keep: false, allowDestructive: false, repeat: 1, quiet: true });
  return result as Record<string, any>;
}

/** The consumers' live count of stale applies, as reported to the runner's progress line. */
function staleSoFar(r: Record<string, any>): number {
  return Object.values(r.harness.consumers).reduce((n: number, c: any) => n + c.stale, 0);
}

test('Kafka, unordered mode (a worker pool): overlaps and reorders with no fault', async () => {
  const r = await run(join(ROOT, 'workloads/nightly/kafka-unordered-pool.yaml'));
  assert.equal(r.verdict.status, 'pass', r.verdict.reasons.join('; '));
  assert.ok(r.anomalies.overlap.count > 0 && r.anomalies.reorder.count > 0);
  // The consumers ran naive, which skips nothing live; versioned, replayed after the run, skips the late ones.
  assert.equal(staleSoFar(r), 0, 'naive skips nothing');
  assert.equal(r.workload.finalState.versioned.mode, 'replay');
  assert.ok(r.workload.finalState.versioned.effects.skipped > 0, 'replayed versioned skips late messages');
});

test('Kafka, key mode (one at a time per key, 8 workers): no overlap, no reorder, every key right', async () => {
  const r = await run(join(ROOT, 'workloads/nightly/kafka-key-concurrency.yaml'));
  assert.equal(r.verdict.status, 'pass', r.verdict.reasons.join('; '));
  assert.equal(r.anomalies.overlap.count + r.anomalies.reorder.count, 0);
  assert.equal(r.workload.finalState.naive.wrong, 0);
  assert.equal(staleSoFar(r), 0);
});

test('Kafka, partition mode with two producer processes and a group of two: no anomaly', async () => {
  const r = await run(join(ROOT, 'workloads/kafka-smoke.yaml'));
  assert.equal(r.verdict.status, 'pass', r.verdict.reasons.join('; '));
  const consumers = Object.keys(r.harness.consumers);
  assert.deepEqual(consumers.sort(), ['c1', 'c2']);
  assert.ok(Object.values(r.harness.consumers).every((c: any) => c.applied > 0), 'both consumers of the group processed messages');
});

test('open loop: a stalled broker shows up as publish delay inside the stall, not before it', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-stall-')), 'broker-stall.yaml');
  writeFileSync(file, `
name: broker-stall
broker: { kind: rabbitmq, topology: single-active }
workload:
  keys: { count: 20 }
  rate: { kind: fixed, perSecond: 200 }
  durationMs: 12s
  warmupMs: 1s
  maxInFlight: 100
consumers: { processes: 1, handler: { kind: constant, ms: 0 } }
faults:
  - { name: broker-unreachable, kind: network, toxic: timeout, attributes: { timeout: 0 }, atMs: 4s, durationMs: 4s }
run: { drainTimeoutMs: 30s, settleMs: 1s }
`);
  const r = await run(file);
  const phase = r.latency.phases.find((p: any) => p.fault === 'broker-unreachable');
  assert.ok(phase.before.publishDelay.p99 < 200_000, `before: ${phase.before.publishDelay.p99} us`);
  assert.ok(phase.during.publishDelay.p99 > 1_000_000, `during: ${phase.during.publishDelay.p99} us`);
});
