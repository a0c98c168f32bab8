/**
 * The scenario types come from the schema (types.ts derives them from schema.ts). The
 * annotations below are checked by `tsc`: a defaulted field the resolved type left optional, or
 * a duration typed as a string, fails to compile; the asserts check the loader agrees at run time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseScenario } from '../../harness/scenario/load.ts';
import type { Scenario, ScenarioInput } from '../../harness/spec/types.ts';
import { options } from './helpers.ts';

test('the resolved type has every defaulted field, durations in ms, as the loader fills them', async () => {
  const text = 'broker: { kind: fake }\nworkload:\n  rate: { kind: fixed, perSecond: 100 }\n  durationMs: 5s\nfaults: [{ name: s, kind: stall, atMs: 1s, consumer: c1 }]\n';
  const { scenario } = await parseScenario(text, { ...options, file: 't.yaml' });
  const s: Scenario = scenario;
  const filled: [string, number, number, number, number, boolean, string, number, number] = [
    s.name,
    s.seed,
    s.run.settleMs,
    s.workload.warmupMs,
    s.workload.keys.count,
    s.workload.producers[0]!.sharedKeys,
    s.consumers.concurrency.mode,
    s.consumers.concurrency.workers,
    s.faults[0]!.durationMs,
  ];
  assert.deepEqual(filled, ['t', 1, 1000, 2000, 1000, false, filled[6], 8, 0]);
  assert.equal(typeof s.consumers.concurrency.mode, 'string');
  const atMs: number = s.faults[0]!.atMs;
  assert.equal(atMs, 1000);
  // Plug-in fields stay open: the fault kind's `consumer`.
  assert.equal(s.faults[0]!.consumer, 'c1');
});

test('the file type leaves defaulted fields out and takes durations as strings', () => {
  const input: ScenarioInput = { broker: { kind: 'fake' }, workload: { rate: { kind: 'fixed', perSecond: 1 }, durationMs: '5s' } };
  // @ts-expect-error a resolved scenario needs its defaults (name, seed, run...)
  const resolved: Scenario = input;
  assert.ok(resolved);
});
