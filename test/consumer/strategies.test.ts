/**
 * The strategies on the textbook cases (strategy-cases.ts), applied through replay() (a fresh
 * in-memory store, the same code the consumers run live), and the registry finding a strategy
 * from a fixture folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { replay, scoreStrategies, type Apply } from '../../harness/consumer/replay.ts';
import { loadStrategies } from '../../harness/consumer/strategies/registry.ts';
import type { ConsumerStrategy } from '../../harness/consumer/strategies/contract.ts';
import type { EntitySpec } from '../../harness/workload/changes.ts';
import { truth } from '../../harness/workload/entity.ts';
import { convoy } from '../runner/helpers.ts';
import { textbookCases } from './strategy-cases.ts';

const strategies = await loadStrategies();
const get = (name: string): ConsumerStrategy => strategies.get(name)!;
const WALLETS: EntitySpec = { kind: 'wallet', events: 'change', cancelShare: 0 };

test('the built-in strategies are found, each named after its file', () => {
  assert.deepEqual([...strategies.keys()].sort(), ['commutative', 'commutative-dedup', 'lww-timestamp', 'naive', 'notification', 'resequencer', 'state-machine', 'versioned']);
});

textbookCases('sqlite', async (...args) => replay(...args));

test('scoreStrategies: the live one from the store file, the fitting pure others by replay in commit order', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-score-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const storeFile = join(dir, 'state.sqlite');
  // The consumers ran commutative-dedup; message 2 was applied twice, and commit order (end) differs from line order.
  const applies: Apply[] = [
    { key: 'w', seq: 2, producer: 'p', end: 30 },
    { key: 'w', seq: 1, producer: 'p', end: 10 },
    { key: 'w', seq: 2, producer: 'p', end: 20 },
  ];
  const { openStore } = await import('../../harness/consumer/entity-store.ts');
  const store = openStore(storeFile, get('commutative-dedup'), WALLETS);
  for (const a of [...applies].sort((x, y) => x.end - y.end)) store.apply(a);
  store.close();
  const t2 = truth(WALLETS, [{ key: 'w', seq: 1 }, { key: 'w', seq: 2 }]);
  const scores = (await scoreStrategies({
    entity: WALLETS, live: 'commutative-dedup', storeFile, truth: t2, unreachable: new Set(), applies,
    liveEffects: { applied: 2, skipped: 1, rejected: 0 },
  }))!;
  assert.deepEqual(Object.keys(scores).sort(), ['commutative', 'commutative-dedup', 'lww-timestamp', 'naive', 'versioned'], 'state-machine does not fit wallets');
  assert.equal(scores['commutative-dedup'].mode, 'live');
  assert.equal(scores['commutative-dedup'].primary, true);
  assert.equal(scores['commutative-dedup'].wrong, 0);
  assert.equal(scores.commutative.mode, 'replay');
  assert.equal(scores.commutative.wrong, 1);
  assert.deepEqual(scores.versioned.effects, { applied: 2, skipped: 1, rejected: 0 });
  assert.equal(scores.versioned.wrong, 0, 'replayed in commit order: 1, 2, then the duplicate');
});

test('a strategy from a fixture folder is found, validated and scored by a real run, with no edit elsewhere', async () => {
  const fixtures = fileURLToPath(new URL('./fixture-strategies/', import.meta.url));
  const results = mkdtempSync(join(tmpdir(), 'convoy-fixture-strategy-'));
  const scenario = join(results, 'fixture.yaml');
  const { writeFileSync, readdirSync, readFileSync } = await import('node:fs');
  writeFileSync(
    scenario,
    [
      'broker: { kind: memory, mode: partitioned, partitions: 2 }',
      'workload: { keys: { count: 5 }, rate: { kind: fixed, perSecond: 100 }, durationMs: 1s, warmupMs: 200ms }',
      'consumers: { processes: 2, strategy: { kind: last-writer, label: x } }',
      'expect: { wrong-state: [{ expect: any }, { expect: any, strategy: versioned }] }',
    ].join('\n'),
  );
  const env = { CONVOY_STRATEGY_DIRS: fixtures };
  const bad = join(results, 'bad.yaml');
  writeFileSync(bad, readFileSync(scenario, 'utf8').replace('label: x', 'colour: x'));
  const refused = await convoy(['validate', bad], { env });
  assert.equal(refused.code, 2, refused.stdout + refused.stderr);
  assert.match(refused.stdout + refused.stderr, /consumers\.strategy\.colour: unknown property; expected one of kind, label/);
  const r = await convoy(['run', scenario, '--results', results, '--quiet'], { env, timeoutMs: 90_000 });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const runId = readdirSync(results).find((f) => !f.endsWith('.yaml'))!;
  const result = JSON.parse(readFileSync(join(results, runId, 'result.json'), 'utf8')) as { workload: { finalState: Record<string, { mode: string; keys: number; effects: { applied: number } }> } };
  const fs = result.workload.finalState;
  assert.equal(fs['last-writer'].mode, 'live');
  assert.ok(fs['last-writer'].keys > 0 && fs['last-writer'].effects.applied > 0);
  assert.equal(fs.versioned.mode, 'replay');
  assert.equal(fs.naive.mode, 'replay');
  // The result, with wrong-state expectations naming strategies, keeps to its published schema.
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  const validate = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true, validateFormats: false }).compile(
    JSON.parse(readFileSync(new URL('../../results/schema/result.v1.json', import.meta.url), 'utf8')) as object,
  );
  assert.ok(validate(result), JSON.stringify(validate.errors));
  rmSync(results, { recursive: true, force: true });
});

test('lww-timestamp on a real run: each event is stamped with the millisecond it happened in, so one writer at 400/s never ties, even when its sends bunch up', async () => {
  const { writeFileSync, readdirSync, readFileSync } = await import('node:fs');
  const results = mkdtempSync(join(tmpdir(), 'convoy-lww-'));
  const scenario = join(results, 'lww.yaml');
  // 400/s: events 2.5 ms apart. Stamped at the send call, a catch-up burst on a busy machine put
  // several events of one key in one millisecond (31 ties at 200/s in a Kafka run).
  writeFileSync(scenario, [
    'broker: { kind: memory, mode: partitioned, partitions: 2 }',
    'workload: { keys: { count: 5 }, rate: { kind: fixed, perSecond: 400 }, durationMs: 2s, warmupMs: 200ms }',
    'consumers: { processes: 1, strategy: lww-timestamp }',
    'expect: { wrong-state: 0 }',
  ].join('\n'));
  const r = await convoy(['run', scenario, '--results', results, '--quiet'], { timeoutMs: 120_000 });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const runId = readdirSync(results).find((f) => !f.endsWith('.yaml'))!;
  const result = JSON.parse(readFileSync(join(results, runId, 'result.json'), 'utf8')) as { workload: { finalState: Record<string, { figures?: Record<string, number>; effects: Record<string, number> }> } };
  const lww = result.workload.finalState['lww-timestamp'];
  assert.deepEqual(lww.figures, { ties: 0 });
  assert.ok(lww.effects.applied > 0);
  rmSync(results, { recursive: true, force: true });
});
