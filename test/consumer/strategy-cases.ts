/**
 * The strategies on the textbook cases, for every backend: each case applies one key's
 * messages in a given arrival order through `applyAll` (a replay into a fresh in-memory SQLite
 * store, strategies.test.ts; or a fresh PostgreSQL store, store-postgres.test.ts) and scores
 * the result against the truth.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Apply } from '../../harness/consumer/replay.ts';
import { compareWithTruth } from '../../harness/consumer/entity-store.ts';
import { loadStrategies } from '../../harness/consumer/strategies/registry.ts';
import type { ConsumerStrategy, Effect, StrategyOptions } from '../../harness/consumer/strategies/contract.ts';
import { cancels, changeStateAt, type EntitySpec } from '../../harness/workload/changes.ts';
import { truth, type VersionedState } from '../../harness/workload/entity.ts';

/** Applies in order into a fresh store of one strategy: what replay() returns. */
export type ApplyAll = (
  strategy: ConsumerStrategy,
  entity: EntitySpec,
  options: StrategyOptions,
  applies: Apply[],
) => Promise<{ final: Map<string, VersionedState>; effects: Record<Effect, number>; figures: Record<string, number> }>;

const strategies = await loadStrategies();
const get = (name: string): ConsumerStrategy => strategies.get(name)!;

/** Registers the cases, their names prefixed with the backend's. */
export function textbookCases(backend: string, applyAll: ApplyAll): void {
  const test_ = (name: string, fn: () => Promise<void>) => test(`${backend}: ${name}`, fn);
  const ORDERS: EntitySpec = { kind: 'order', events: 'change', cancelShare: 0.5 };
  const WALLETS: EntitySpec = { kind: 'wallet', events: 'change', cancelShare: 0 };
  const keyWhere = (cancelled: boolean) => Array.from({ length: 100 }, (_, i) => `k${i}`).find((k) => cancels(ORDERS, k) === cancelled)!;
  const ADA = keyWhere(true); // PLACED, ADDRESS_CHANGED, CANCELLED
  const ALAN = keyWhere(false); // PLACED, ADDRESS_CHANGED, PAID, ADDRESS_CHANGED, SHIPPED, DELIVERED

  /** Applies `order` (seqs of one key, in arrival order) and scores the result against all of 1..n. */
  async function run(name: string, entity: EntitySpec, key: string, order: number[], options = {}) {
    const applies: Apply[] = order.map((seq, i) => ({ key, seq, producer: 'p', end: i + 1 }));
    const { final, effects } = await applyAll(get(name), entity, { kind: name, ...options }, applies);
    const n = Math.max(...order);
    const t = truth(entity, Array.from({ length: n }, (_, i) => ({ key, seq: i + 1 })));
    return { final: final.get(key)!, effects, score: compareWithTruth(final, t, [], 10, get(name).scoresVersion) };
  }

  test_("the late address change (1, 3, 2): naive ships the cancelled order; state-machine keeps it cancelled with the new city", async () => {
    const naive = await run('naive', ORDERS, ADA, [1, 3, 2]);
    assert.equal(naive.final.state.status, 'PLACED', 'the late address change pulled the plan back');
    assert.deepEqual(naive.score.wrongKeys[0].fields, ['version', 'status']);
    const sm = await run('state-machine', ORDERS, ADA, [1, 3, 2]);
    assert.deepEqual(sm.final.state, changeStateAt(ORDERS, ADA, 3));
    assert.equal(sm.score.wrong, 0);
    // versioned with change events: v3 is a gap after v1 (rejected), v2 then applies: not cancelled.
    const v = await run('versioned', ORDERS, ADA, [1, 3, 2]);
    assert.deepEqual(v.effects, { applied: 2, skipped: 0, rejected: 1 });
    assert.equal(v.final.state.status, 'PLACED');
    assert.equal(v.score.wrong, 1);
  });

  test_('state-machine is still wrong where a late address change overwrites the city, and where an update lands before its create', async () => {
    const late = await run('state-machine', ORDERS, ALAN, [1, 2, 3, 4, 5, 6].filter((s) => s !== 2).concat(2));
    assert.deepEqual(late.score.wrongKeys[0].fields, ['city']);
    assert.equal(late.final.state.status, 'DELIVERED', 'the status stayed forward');
    const early = await run('state-machine', ORDERS, ADA, [2, 1, 3]);
    assert.deepEqual(early.score.wrongKeys[0].fields, ['city'], "PLACED's city overwrote the change");
    // Late and repeated status events: right; an in-order redelivery of a suffix (a crash): right; a late note: wrong.
    assert.equal((await run('state-machine', ORDERS, ALAN, [1, 2, 3, 5, 4, 3, 6, 5, 7, 8])).score.wrong, 0);
    assert.equal((await run('state-machine', ORDERS, ALAN, [1, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6, 7])).score.wrong, 0);
    assert.deepEqual((await run('state-machine', ORDERS, ALAN, [1, 2, 3, 4, 5, 6, 8, 7])).score.wrongKeys[0].fields, ['note']);
  });

  test_('versioned on change events: skips stale and duplicate, rejects a gap; gaps: apply applies it and ends wrong', async () => {
    const inOrder = await run('versioned', ORDERS, ALAN, [1, 2, 2, 3, 1, 4, 5, 6]);
    assert.deepEqual(inOrder.effects, { applied: 6, skipped: 2, rejected: 0 });
    assert.equal(inOrder.score.wrong, 0);
    const gap = await run('versioned', WALLETS, 'w1', [1, 3, 2]);
    assert.deepEqual(gap.effects, { applied: 2, skipped: 0, rejected: 1 });
    assert.deepEqual(gap.score.wrongKeys[0].fields, ['version', 'balance']);
    const applied = await run('versioned', WALLETS, 'w1', [1, 3, 2], { gaps: 'apply' });
    assert.deepEqual(applied.effects, { applied: 2, skipped: 1, rejected: 0 });
    assert.equal(applied.score.wrong, 1, 'v2 is skipped as stale once v3 is in: its amount is lost');
  });

  test_('commutative: any order is right, a duplicate counts twice; commutative-dedup skips it', async () => {
    const shuffled = [4, 1, 3, 2, 5];
    assert.equal((await run('commutative', WALLETS, 'w2', shuffled)).score.wrong, 0);
    assert.equal((await run('commutative-dedup', WALLETS, 'w2', shuffled)).score.wrong, 0);
    const dup = [1, 2, 3, 2, 4, 5];
    const plain = await run('commutative', WALLETS, 'w2', dup);
    assert.deepEqual(plain.score.wrongKeys[0].fields, ['balance']);
    assert.deepEqual(plain.effects, { applied: 6, skipped: 0, rejected: 0 });
    const dedup = await run('commutative-dedup', WALLETS, 'w2', dup);
    assert.equal(dedup.score.wrong, 0);
    assert.deepEqual(dedup.effects, { applied: 5, skipped: 1, rejected: 0 });
    // naive folds deltas as they come: the same as commutative.
    assert.equal((await run('naive', WALLETS, 'w2', dup)).score.wrong, 1);
  });

  test_('whole-state events: naive and versioned behave as before', async () => {
    const STATE: EntitySpec = { kind: 'order', events: 'state', cancelShare: 0 };
    assert.equal((await run('naive', STATE, 'k1', [1, 3, 2])).score.wrong, 1);
    const v = await run('versioned', STATE, 'k1', [1, 3, 2, 3]);
    assert.deepEqual(v.effects, { applied: 2, skipped: 2, rejected: 0 });
    assert.equal(v.score.wrong, 0);
    // A gap in whole states is fine: newer state wins.
    assert.equal((await run('versioned', STATE, 'k1', [3])).score.wrong, 0);
  });

  /** lww-timestamp on one key: [seq, stamp ms] in arrival order, scored against 1..max. */
  async function lww(entity: EntitySpec, key: string, arrivals: [number, number | undefined][]) {
    const applies: Apply[] = arrivals.map(([seq, stampMs], i) => ({ key, seq, producer: 'p', end: i + 1, ...(stampMs === undefined ? {} : { stampMs }) }));
    const { final, effects, figures } = await applyAll(get('lww-timestamp'), entity, { kind: 'lww-timestamp' }, applies);
    const n = Math.max(...arrivals.map(([s]) => s));
    const t = truth(entity, Array.from({ length: n }, (_, i) => ({ key, seq: i + 1 })));
    return { final: final.get(key), effects, figures, score: compareWithTruth(final, t, [], 10, true) };
  }

  test_('lww-timestamp: newer stamps win whatever the arrival order; a writer whose clock stepped back loses its newer version', async () => {
    const STATE: EntitySpec = { kind: 'wallet', events: 'state', cancelShare: 0 };
    // Out of order but stamped in version order: the stamp puts it right.
    const reordered = await lww(STATE, 'w', [[1, 1000], [3, 1030], [2, 1020]]);
    assert.deepEqual(reordered.effects, { applied: 2, skipped: 1, rejected: 0 });
    assert.equal(reordered.score.wrong, 0);
    // Two writers; the second's clock is 500 ms behind: its v3, sent after v2, carries an older stamp and is skipped.
    const skewed = await lww(STATE, 'w', [[1, 1000], [2, 1010], [3, 1020 - 500]]);
    assert.deepEqual(skewed.effects, { applied: 2, skipped: 1, rejected: 0 });
    assert.equal(skewed.final?.version, 2);
    assert.deepEqual(skewed.score.wrongKeys[0].fields.slice(0, 1), ['version']);
    assert.deepEqual(skewed.figures, { ties: 0 });
    // versioned on the same arrivals is right.
    assert.equal((await run('versioned', STATE, 'w', [1, 2, 3])).score.wrong, 0);
  });

  test_('lww-timestamp: an equal stamp is a tie, skipped and counted; a message without a stamp is rejected', async () => {
    const STATE: EntitySpec = { kind: 'wallet', events: 'state', cancelShare: 0 };
    const tied = await lww(STATE, 'w', [[1, 1000], [2, 1005], [3, 1005], [4, 1005]]);
    assert.deepEqual(tied.effects, { applied: 2, skipped: 2, rejected: 0 });
    assert.deepEqual(tied.figures, { ties: 2 });
    assert.equal(tied.score.wrong, 1, 'v3 and v4 lost to v2 in the same millisecond');
    const older = await lww(STATE, 'w', [[2, 1005], [1, 1000]]);
    assert.deepEqual(older.figures, { ties: 0 }, 'an older stamp is stale, not a tie');
    const unstamped = await lww(STATE, 'w', [[1, undefined]]);
    assert.deepEqual(unstamped.effects, { applied: 0, skipped: 0, rejected: 1 });
    // Change events: a skipped change stays lost (its amount is missing from the balance).
    const deltas = await lww(WALLETS, 'w3', [[1, 1000], [2, 1000], [3, 1010]]);
    assert.deepEqual(deltas.score.wrongKeys[0]?.fields, ['balance']);
  });
}
