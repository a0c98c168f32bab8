/**
 * Regression (a memory-broker clock skew): the checker orders applies by their recorded end,
 * which must be when the apply committed. The resequencer kept one "last apply" stamp per store
 * and the consumer read it after awaiting the apply; handlings of other keys in the same process
 * that resumed together (a batch pushed at once, a stall's end) applied in between, so many ends
 * read the last one's stamp: equal across keys and later than their commits. With two competing
 * consumers the history then showed reorders the shared store cannot have made (a memory run of
 * this scenario before the fix: reorder 1 on 8 keys, 10 to 351 applies sharing an end). Ends are
 * now the apply's own stamp, per key, or taken at once after a synchronous apply.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convoy, onlyRunDir } from '../runner/helpers.ts';
import { openStore } from '../../harness/consumer/entity-store.ts';
import { loadStrategies } from '../../harness/consumer/strategies/registry.ts';
import { ordersScenario } from './orders-scenario.ts';

const SCENARIO = ordersScenario({
  name: 'memory-resequencer-two-consumers-stall', seed: 5, broker: 'mode: queue', keys: 8, perSecond: 400, processes: 2,
  concurrency: '{ mode: key, workers: 20 }', strategy: 'resequencer',
  faults: ['{ name: stall, kind: stall, consumer: c1, atMs: 800ms, durationMs: 700ms }'],
  expect: '{ reorder: 0, wrong-state: 0, overlap: any, displaced: any, duplicate: any }',
});

test('the resequencer stamps each key\'s apply on its own', async () => {
  const resequencer = (await loadStrategies()).get('resequencer')!;
  let now = 1_000;
  const ctx = { now: () => (now += 10), mark: () => {} };
  const store = openStore(':memory:', resequencer, { kind: 'order', events: 'change', cancelShare: 0 }, { kind: 'resequencer' }, {}, ctx);
  const a = { key: 'a', seq: 1, producer: 'p' };
  const b = { key: 'b', seq: 1, producer: 'p' };
  await store.apply(a);
  const atA = store.appliedAt(a);
  await store.apply(b);
  assert.equal(store.appliedAt(a), atA, "b's apply does not move a's stamp");
  assert.ok(store.appliedAt(b)! > atA!);
  store.close();
});

test('two competing consumers with the resequencer: every apply has its own end, and the history shows no reorder', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-apply-stamps-'));
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, SCENARIO);
  const r = await convoy(['run', file, '--results', join(dir, 'results'), '--quiet'], { timeoutMs: 120_000 });
  const runDir = onlyRunDir(join(dir, 'results'));
  const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as { verdict: { status: string; reasons: string[] }; anomalies: { reorder: { count: number } } };
  assert.equal(result.anomalies.reorder.count, 0, 'the shared store applies each key in order; so must the history');
  const ends = new Map<number, number>();
  for (const line of readFileSync(join(runDir, 'history.jsonl'), 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as { type: string; outcome?: string; held?: number; end?: number };
    if (e.type === 'process' && e.outcome === 'ok' && e.held === undefined) ends.set(e.end!, (ends.get(e.end!) ?? 0) + 1);
  }
  const shared = [...ends.values()].filter((n) => n > 1).reduce((s, n) => s + n, 0);
  assert.ok(ends.size > 100, `applies recorded (${ends.size})`);
  assert.equal(shared, 0, 'no two applies share an end stamp');
  assert.equal(r.code, 0, `${result.verdict.reasons.join('; ')}\n${r.stderr}`);
});
