/**
 * Why the resequencer scenarios run in key mode: a held message stays unsettled and counts
 * toward the consumer's in-flight cap, and in partition mode that cap is 1, so one held
 * message stops the consumer (every lane) until it is released; in key mode the other keys go
 * on. Real runs on the memory broker through the CLI: one consumer, one lost message per few
 * keys (poison, dead-lettered), the bounded resequencer (300 ms). The result's costs count the
 * stalls and say when each began and how long it lasted; the report shows them; the key-mode
 * twin has none. Lock renewals are counted (0 here: the memory broker has no lock to renew).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convoy, onlyRunDir } from '../runner/helpers.ts';
import { ordersScenario } from './orders-scenario.ts';

const scenario = (mode: string) =>
  ordersScenario({
    name: `memory-lost-resequencer-${mode.split(',')[0]}`, seed: 31, broker: 'mode: queue, maxDeliveries: 3', keys: 20, perSecond: 200, processes: 1,
    concurrency: `{ mode: ${mode} }`, strategy: '{ kind: resequencer, maxAgeMs: 300 }',
    consumerLines: ['  poison: { share: 0.01, policy: dead-letter }'],
    expect: '{ abandoned: ">0", gap: any, reorder: 0, wrong-state: 0 }',
  });

interface Costs {
  counts: Record<string, number>;
  derived?: { capStalls?: { consumer: string; atMs: number; ms: number | null }[] };
}

async function run(mode: string): Promise<{ costs: Costs; report: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-reseq-cap-'));
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, scenario(mode));
  const r = await convoy(['run', file, '--results', join(dir, 'results'), '--quiet'], { timeoutMs: 120_000 });
  const runDir = onlyRunDir(join(dir, 'results'));
  const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as { verdict: { status: string; reasons: string[] }; workload: { finalState: Record<string, { costs: Costs }> } };
  assert.notEqual(result.verdict.status, 'fail', `${mode}: ${result.verdict.reasons.join('; ')}\n${r.stderr}`);
  return { costs: result.workload.finalState.resequencer!.costs, report: readFileSync(join(runDir, 'report.html'), 'utf8') };
}

test('partition mode: one held message fills the cap of 1 and stalls the consumer; the result says when, the report shows it; key mode does not stall', async () => {
  const partition = await run('partition');
  const c = partition.costs;
  assert.ok((c.counts.held ?? 0) > 0, 'messages were held behind the lost ones');
  assert.ok((c.counts.capStalls ?? 0) > 0, `the cap stalled the consumer (${JSON.stringify(c.counts)})`);
  const stalls = c.derived?.capStalls ?? [];
  assert.equal(stalls.length, Math.min(50, c.counts.capStalls!), 'each stall is listed with its time');
  for (const s of stalls) {
    assert.equal(s.consumer, 'c1');
    assert.ok(s.atMs >= 0, `begins after the start (${s.atMs} ms)`);
    assert.ok(s.ms === null || s.ms >= 0);
  }
  assert.equal(c.counts.renewals, 0, 'renewals are counted; the memory broker has no lock to renew');
  assert.equal(c.counts.renewalFailures, 0);
  assert.match(partition.report, /<section id="costs">/);
  assert.match(partition.report, /data-cap-stalls="resequencer"/);
  assert.match(partition.report, /data-cost="held"/);

  const key = await run('key, workers: 50');
  assert.ok((key.costs.counts.held ?? 0) > 0, 'key mode held messages too');
  assert.equal(key.costs.counts.capStalls, undefined, 'key mode: the held messages never filled the cap of 50');
  assert.equal(key.costs.derived?.capStalls, undefined);
  assert.match(key.report, /never filled a consumer's in-flight cap/);
});
