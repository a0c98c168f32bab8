/**
 * Open-loop timing on a real broker: a stalled broker shows up as publish delay, in one run (a
 * stall needs a client link to cut, which the memory broker has not). The concurrency modes'
 * ordering is shown on the memory broker (brokers/memory/test/runs.test.ts).
 */
// @needs rabbitmq
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenarioFile } from '../../harness/scenario/load.ts';
import { runOnce } from '../../harness/runner/run-and-analyze.ts';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';

const results = mkdtempSync(join(tmpdir(), 'convoy-modes-'));

async function run(file: string) {
  const scenario = await loadScenarioFile(file, { catalogue: await scenarioCatalogue(), onWarning: () => {} });
  const { result } = await runOnce(scenario, { runtime: 'local', resultsDir: results, keep: false, allowDestructive: false, repeat: 1, quiet: true });
  return result as Record<string, any>;
}

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
