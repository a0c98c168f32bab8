/**
 * The resequencer's store (harness/consumer/strategies/resequencer.ts) on its own: what it
 * holds, releases and skips, its bounds (an alert and a fetch from the owner) and its costs,
 * with two stores on one file standing for two competing consumers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../harness/consumer/entity-store.ts';
import { loadStrategies } from '../../harness/consumer/strategies/registry.ts';
import type { StrategyContext } from '../../harness/consumer/strategies/contract.ts';
import { changeStateAt, type EntitySpec } from '../../harness/workload/changes.ts';
import { decode } from '../../harness/metrics/histogram.ts';

const resequencer = (await loadStrategies()).get('resequencer')!;
const ORDERS: EntitySpec = { kind: 'order', events: 'change', cancelShare: 0 };
const m = (seq: number, key = 'k1') => ({ key, seq, producer: 'p' });

/** A context whose clock the test moves, whose marks it keeps, and whose owner is at `ownerVersion`. */
function context(ownerVersion = 0) {
  const marks: { name: string; detail: Record<string, unknown> }[] = [];
  let now = 1_000_000;
  const ctx: StrategyContext = {
    now: () => now,
    mark: (name, detail) => void marks.push({ name, detail }),
    fetchOwner: async (key) => (ownerVersion ? { version: ownerVersion, state: changeStateAt(ORDERS, key, ownerVersion) } : null),
  };
  return { ctx, marks, advance: (ms: number) => (now += ms * 1000) };
}

test('a message ahead of the next version is held, and released in order once another consumer applies the gap', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-reseq-')), 'state.sqlite');
  const a = context();
  const b = context();
  const c1 = openStore(file, resequencer, ORDERS, { kind: 'resequencer' }, {}, a.ctx);
  const c2 = openStore(file, resequencer, ORDERS, { kind: 'resequencer' }, {}, b.ctx);
  assert.equal(await c1.apply(m(1)), 'applied');
  // Stamped inside the apply's transaction, so ends follow commit order across consumers.
  assert.equal(c1.appliedAt(m(1)), a.ctx.now());
  assert.equal(await c1.apply(m(4)), 'held');
  assert.equal(await c1.apply(m(3)), 'held');
  assert.deepEqual(await c1.release(), [], 'nothing can leave while 2 is missing');
  assert.equal(await c2.apply(m(2)), 'applied', 'the other consumer applies the gap');
  a.advance(5);
  const released = await c1.release();
  assert.deepEqual(released.map((r) => [r.seq, r.effect]), [[3, 'applied'], [4, 'applied']]);
  assert.equal(await c2.apply(m(3)), 'skipped', 'a redelivery of an applied one');
  assert.deepEqual(c1.finalStates().get('k1'), { version: 4, state: changeStateAt(ORDERS, 'k1', 4) });
  const costs = c1.costs();
  assert.equal(costs.counts.held, 2);
  assert.equal(costs.counts.released, 2);
  assert.equal(costs.counts.heldAtEnd, 0);
  assert.equal(costs.peaks.peakHeldPerKey, 2);
  assert.equal(decode(costs.histograms.addedLatency!).totalCount, 2);
  assert.equal(decode(costs.histograms.addedLatency!).maxValue >= 5000, true, 'added latency: held until released');
  c1.close();
  c2.close();
});

test('at the age bound it alerts, fetches the owner, stores that state and goes on; unbounded keeps holding', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-reseq-')), 'state.sqlite');
  const c = context(5);
  const store = openStore(file, resequencer, ORDERS, { kind: 'resequencer', maxAgeMs: 1000 }, {}, c.ctx);
  await store.apply(m(1));
  for (const s of [3, 4, 6]) assert.equal(await store.apply(m(s)), 'held'); // 2 is lost
  c.advance(500);
  assert.deepEqual(await store.release(), []);
  c.advance(600);
  const released = await store.release();
  assert.deepEqual(released.map((r) => [r.seq, r.effect]), [[3, 'skipped'], [4, 'skipped'], [6, 'applied']], "the owner's v5 covers 3 and 4; 6 follows it");
  assert.deepEqual(c.marks.map((x) => x.name), ['resequencer-alert', 'resequencer-fetched']);
  assert.equal(c.marks[0]!.detail.bound, 'age');
  assert.deepEqual(store.finalStates().get('k1'), { version: 6, state: changeStateAt(ORDERS, 'k1', 6) });
  assert.equal(store.costs().counts.fetches, 1);
  store.close();

  const u = context(5);
  const unbounded = openStore(join(mkdtempSync(join(tmpdir(), 'convoy-reseq-')), 's.sqlite'), resequencer, ORDERS, { kind: 'resequencer', unbounded: true }, {}, u.ctx);
  await unbounded.apply(m(1));
  for (let s = 3; s <= 50; s++) await unbounded.apply(m(s));
  u.advance(3_600_000);
  assert.deepEqual(await unbounded.release(), []);
  assert.equal(u.marks.length, 0, 'no alert, no fetch');
  assert.equal(unbounded.costs().counts.heldAtEnd, 48);
  unbounded.close();
});

test('the count bound acts when a key holds more than maxHeld', async () => {
  const c = context(9);
  const store = openStore(':memory:', resequencer, ORDERS, { kind: 'resequencer', maxHeld: 3 }, {}, c.ctx);
  await store.apply(m(1));
  for (const s of [3, 4, 5]) await store.apply(m(s));
  assert.deepEqual(await store.release(), [], 'three held: at the bound, not over it');
  await store.apply(m(7));
  const released = await store.release();
  assert.equal(c.marks[0]!.detail.bound, 'count');
  assert.deepEqual(released.map((r) => r.seq), [3, 4, 5, 7]);
  assert.equal(store.finalStates().get('k1')!.version, 9);
  store.close();
});

test("the in-flight cap bound: when held messages fill the consumer's cap for fullWaitMs, the key that waited longest is settled from its owner, one key per wait", async () => {
  const c = context(6);
  c.ctx.inFlightCap = 4;
  const store = openStore(':memory:', resequencer, ORDERS, { kind: 'resequencer', fullWaitMs: 1000 }, {}, c.ctx);
  for (const key of ['a', 'b']) await store.apply(m(1, key));
  // a: 2 is lost (dead-lettered, redriven behind everything); b: 2 is lost too.
  await store.apply(m(3, 'a'));
  c.advance(10);
  await store.apply(m(4, 'a'));
  await store.apply(m(3, 'b'));
  assert.deepEqual(await store.release(), [], 'three held, below the cap of four');
  c.advance(5_000);
  assert.deepEqual(await store.release(), [], 'below the cap nothing but the age bound (30 s) acts');
  await store.apply(m(5, 'b')); // the cap is full: nothing more would be delivered
  assert.deepEqual(await store.release(), [], 'full from now');
  c.advance(999);
  assert.deepEqual(await store.release(), [], 'not yet full for 1000 ms');
  c.advance(1);
  const released = await store.release();
  assert.deepEqual(released.map((r) => [r.key, r.seq, r.effect]), [['a', 3, 'skipped'], ['a', 4, 'skipped']], "a waited longest: the owner's v6 covers its held 3 and 4");
  assert.deepEqual(c.marks.map((x) => [x.name, x.detail.key, x.detail.bound]), [['resequencer-alert', 'a', 'in-flight cap'], ['resequencer-fetched', 'a', undefined]]);
  c.advance(5_000);
  assert.deepEqual(await store.release(), [], 'two held now, below the cap: b waits for its gap or the age bound');
  assert.equal(store.costs().counts.heldAtEnd, 2);
  store.close();

  // Without a cap (the context does not say), the same holds wait for the age bound.
  const u = context(6);
  const uncapped = openStore(':memory:', resequencer, ORDERS, { kind: 'resequencer' }, {}, u.ctx);
  await uncapped.apply(m(1));
  for (const s of [3, 4, 5, 6]) await uncapped.apply(m(s));
  u.advance(10_000);
  assert.deepEqual(await uncapped.release(), []);
  assert.equal(u.marks.length, 0);
  uncapped.close();
});
