/**
 * The strategies on the textbook cases, applied through replay() (a fresh in-memory store, the
 * same code the consumers run live), and the registry finding a strategy from a fixture folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { replay, scoreStrategies, type Apply } from '../../harness/consumer/replay.ts';
import { compareWithTruth } from '../../harness/consumer/entity-store.ts';
import { loadStrategies } from '../../harness/consumer/strategies/registry.ts';
import type { ConsumerStrategy } from '../../harness/consumer/strategies/contract.ts';
import { cancels, changeStateAt, type EntitySpec } from '../../harness/workload/changes.ts';
import { truth } from '../../harness/workload/entity.ts';
import { convoy } from '../runner/helpers.ts';

const strategies = await loadStrategies();
const get = (name: string): ConsumerStrategy => strategies.get(name)!;
const ORDERS: EntitySpec = { kind: 'order', events: 'change', cancelShare: 0.5 };
const WALLETS: EntitySpec = { kind: 'wallet', events: 'change', cancelShare: 0 };
const keyWhere = (cancelled: boolean) => Array.from({ length: 100 }, (_, i) => `k${i}`).find((k) => cancels(ORDERS, k) === cancelled)!;
const ADA = keyWhere(true); // PLACED, ADDRESS_CHANGED, CANCELLED
const ALAN = keyWhere(false); // PLACED, ADDRESS_CHANGED, PAID, ADDRESS_CHANGED, SHIPPED, DELIVERED

/** Applies `order` (seqs of one key, in arrival order) and scores the result against all of 1..n. */
function run(name: string, entity: EntitySpec, key: string, order: number[], options = {}) {
  const applies: Apply[] = order.map((seq, i) => ({ key, seq, producer: 'p', end: i + 1 }));
  const { final, effects } = replay(get(name), entity, { kind: name, ...options }, applies);
  const n = Math.max(...order);
  const t = truth(entity, Array.from({ length: n }, (_, i) => ({ key, seq: i + 1 })));
  return { final: final.get(key)!, effects, score: compareWithTruth(final, t, [], 10, get(name).scoresVersion) };
}

test('the built-in strategies are found, each named after its file', () => {
  assert.deepEqual([...strategies.keys()].sort(), ['commutative', 'commutative-dedup', 'lww-timestamp', 'naive', 'notification', 'resequencer', 'state-machine', 'versioned']);
});

test("the late address change (1, 3, 2): naive ships the cancelled order; state-machine keeps it cancelled with the new city", () => {
  const naive = run('naive', ORDERS, ADA, [1, 3, 2]);
  assert.equal(naive.final.state.status, 'PLACED', 'the late address change pulled the plan back');
  assert.deepEqual(naive.score.wrongKeys[0].fields, ['version', 'status']);
  const sm = run('state-machine', ORDERS, ADA, [1, 3, 2]);
  assert.deepEqual(sm.final.state, changeStateAt(ORDERS, ADA, 3));
  assert.equal(sm.score.wrong, 0);
  // versioned with change events: v3 is a gap after v1 (rejected), v2 then applies: not cancelled.
  const v = run('versioned', ORDERS, ADA, [1, 3, 2]);
  assert.deepEqual(v.effects, { applied: 2, skipped: 0, rejected: 1 });
  assert.equal(v.final.state.status, 'PLACED');
  assert.equal(v.score.wrong, 1);
});

test('state-machine is still wrong where a late address change overwrites the city, and where an update lands before its create', () => {
  const late = run('state-machine', ORDERS, ALAN, [1, 2, 3, 4, 5, 6].filter((s) => s !== 2).concat(2));
  assert.deepEqual(late.score.wrongKeys[0].fields, ['city']);
  assert.equal(late.final.state.status, 'DELIVERED', 'the status stayed forward');
  const early = run('state-machine', ORDERS, ADA, [2, 1, 3]);
  assert.deepEqual(early.score.wrongKeys[0].fields, ['city'], "PLACED's city overwrote the change");
  // Late and repeated status events: right; an in-order redelivery of a suffix (a crash): right; a late note: wrong.
  assert.equal(run('state-machine', ORDERS, ALAN, [1, 2, 3, 5, 4, 3, 6, 5, 7, 8]).score.wrong, 0);
  assert.equal(run('state-machine', ORDERS, ALAN, [1, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6, 7]).score.wrong, 0);
  assert.deepEqual(run('state-machine', ORDERS, ALAN, [1, 2, 3, 4, 5, 6, 8, 7]).score.wrongKeys[0].fields, ['note']);
});

test('versioned on change events: skips stale and duplicate, rejects a gap; gaps: apply applies it and ends wrong', () => {
  const inOrder = run('versioned', ORDERS, ALAN, [1, 2, 2, 3, 1, 4, 5, 6]);
  assert.deepEqual(inOrder.effects, { applied: 6, skipped: 2, rejected: 0 });
  assert.equal(inOrder.score.wrong, 0);
  const gap = run('versioned', WALLETS, 'w1', [1, 3, 2]);
  assert.deepEqual(gap.effects, { applied: 2, skipped: 0, rejected: 1 });
  assert.deepEqual(gap.score.wrongKeys[0].fields, ['version', 'balance']);
  const applied = run('versioned', WALLETS, 'w1', [1, 3, 2], { gaps: 'apply' });
  assert.deepEqual(applied.effects, { applied: 2, skipped: 1, rejected: 0 });
  assert.equal(applied.score.wrong, 1, 'v2 is skipped as stale once v3 is in: its amount is lost');
});

test('commutative: any order is right, a duplicate counts twice; commutative-dedup skips it', () => {
  const shuffled = [4, 1, 3, 2, 5];
  assert.equal(run('commutative', WALLETS, 'w2', shuffled).score.wrong, 0);
  assert.equal(run('commutative-dedup', WALLETS, 'w2', shuffled).score.wrong, 0);
  const dup = [1, 2, 3, 2, 4, 5];
  const plain = run('commutative', WALLETS, 'w2', dup);
  assert.deepEqual(plain.score.wrongKeys[0].fields, ['balance']);
  assert.deepEqual(plain.effects, { applied: 6, skipped: 0, rejected: 0 });
  const dedup = run('commutative-dedup', WALLETS, 'w2', dup);
  assert.equal(dedup.score.wrong, 0);
  assert.deepEqual(dedup.effects, { applied: 5, skipped: 1, rejected: 0 });
  // naive folds deltas as they come: the same as commutative.
  assert.equal(run('naive', WALLETS, 'w2', dup).score.wrong, 1);
});

test('whole-state events: naive and versioned behave as before', () => {
  const STATE: EntitySpec = { kind: 'order', events: 'state', cancelShare: 0 };
  assert.equal(run('naive', STATE, 'k1', [1, 3, 2]).score.wrong, 1);
  const v = run('versioned', STATE, 'k1', [1, 3, 2, 3]);
  assert.deepEqual(v.effects, { applied: 2, skipped: 2, rejected: 0 });
  assert.equal(v.score.wrong, 0);
  // A gap in whole states is fine: newer state wins.
  assert.equal(run('versioned', STATE, 'k1', [3]).score.wrong, 0);
});

/** lww-timestamp on one key: [seq, stamp ms] in arrival order, scored against 1..max. */
function lww(entity: EntitySpec, key: string, arrivals: [number, number | undefined][]) {
  const applies: Apply[] = arrivals.map(([seq, stampMs], i) => ({ key, seq, producer: 'p', end: i + 1, ...(stampMs === undefined ? {} : { stampMs }) }));
  const { final, effects, figures } = replay(get('lww-timestamp'), entity, { kind: 'lww-timestamp' }, applies);
  const n = Math.max(...arrivals.map(([s]) => s));
  const t = truth(entity, Array.from({ length: n }, (_, i) => ({ key, seq: i + 1 })));
  return { final: final.get(key), effects, figures, score: compareWithTruth(final, t, [], 10, true) };
}

test('lww-timestamp: newer stamps win whatever the arrival order; a writer whose clock stepped back loses its newer version', () => {
  const STATE: EntitySpec = { kind: 'wallet', events: 'state', cancelShare: 0 };
  // Out of order but stamped in version order: the stamp puts it right.
  const reordered = lww(STATE, 'w', [[1, 1000], [3, 1030], [2, 1020]]);
  assert.deepEqual(reordered.effects, { applied: 2, skipped: 1, rejected: 0 });
  assert.equal(reordered.score.wrong, 0);
  // Two writers; the second's clock is 500 ms behind: its v3, sent after v2, carries an older stamp and is skipped.
  const skewed = lww(STATE, 'w', [[1, 1000], [2, 1010], [3, 1020 - 500]]);
  assert.deepEqual(skewed.effects, { applied: 2, skipped: 1, rejected: 0 });
  assert.equal(skewed.final?.version, 2);
  assert.deepEqual(skewed.score.wrongKeys[0].fields.slice(0, 1), ['version']);
  assert.deepEqual(skewed.figures, { ties: 0 });
  // versioned on the same arrivals is right.
  assert.equal(run('versioned', STATE, 'w', [1, 2, 3]).score.wrong, 0);
});

test('lww-timestamp: an equal stamp is a tie, skipped and counted; a message without a stamp is rejected', () => {
  const STATE: EntitySpec = { kind: 'wallet', events: 'state', cancelShare: 0 };
  const tied = lww(STATE, 'w', [[1, 1000], [2, 1005], [3, 1005], [4, 1005]]);
  assert.deepEqual(tied.effects, { applied: 2, skipped: 2, rejected: 0 });
  assert.deepEqual(tied.figures, { ties: 2 });
  assert.equal(tied.score.wrong, 1, 'v3 and v4 lost to v2 in the same millisecond');
  const older = lww(STATE, 'w', [[2, 1005], [1, 1000]]);
  assert.deepEqual(older.figures, { ties: 0 }, 'an older stamp is stale, not a tie');
  const unstamped = lww(STATE, 'w', [[1, undefined]]);
  assert.deepEqual(unstamped.effects, { applied: 0, skipped: 0, rejected: 1 });
  // Change events: a skipped change stays lost (its amount is missing from the balance).
  const deltas = lww(WALLETS, 'w3', [[1, 1000], [2, 1000], [3, 1010]]);
  assert.deepEqual(deltas.score.wrongKeys[0]?.fields, ['balance']);
});

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
