import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng, hash32 } from '../../harness/workload/rng.ts';

const draw = (r: Rng, n: number) => Array.from({ length: n }, () => r.nextU32());

test('same seed, same sequence; different seed, different sequence', () => {
  assert.deepEqual(draw(Rng.from(42), 100), draw(Rng.from(42), 100));
  assert.notDeepEqual(draw(Rng.from(42), 100), draw(Rng.from(43), 100));
  assert.notDeepEqual(draw(Rng.from(0), 10), draw(Rng.from(2 ** 32), 10), 'high bits of the seed count');
  assert.deepEqual(draw(Rng.from('abc'), 10), draw(Rng.from('abc'), 10));
});

test('fork depends on the name and the seed, never on what the parent drew', () => {
  const a = Rng.from(7);
  const fresh = draw(a.fork('keys'), 50);
  draw(a, 1000);
  a.next();
  assert.deepEqual(draw(a.fork('keys'), 50), fresh);
  assert.notDeepEqual(draw(a.fork('sizes'), 50), fresh);
  assert.notDeepEqual(draw(Rng.from(8).fork('keys'), 50), fresh);
  // Nested forks are streams of their own too.
  assert.notDeepEqual(draw(a.fork('keys').fork('x'), 50), fresh);
});

test('next() is uniform on [0, 1); int(n) covers [0, n) evenly', () => {
  const r = Rng.from(1);
  const N = 200_000;
  let sum = 0;
  let min = 1;
  let max = 0;
  for (let i = 0; i < N; i++) {
    const x = r.next();
    sum += x;
    min = Math.min(min, x);
    max = Math.max(max, x);
  }
  assert.ok(Math.abs(sum / N - 0.5) < 0.005, `mean ${sum / N}`);
  assert.ok(min >= 0 && max < 1);
  const counts = new Array(7).fill(0);
  for (let i = 0; i < 70_000; i++) counts[r.int(7)]++;
  for (const c of counts) assert.ok(Math.abs(c - 10_000) < 500, `bucket ${c}`);
  for (let i = 0; i < 1000; i++) {
    const v = r.intBetween(3, 5);
    assert.ok(v >= 3 && v <= 5 && Number.isInteger(v));
  }
});

test('exponential has the requested mean; clone replays', () => {
  const r = Rng.from(5);
  let s = 0;
  for (let i = 0; i < 100_000; i++) s += r.exponential(4);
  assert.ok(Math.abs(s / 100_000 - 4) < 0.1, `mean ${s / 100_000}`);
  const c = r.clone();
  assert.deepEqual(draw(c, 20), draw(r, 20));
});

test('hash32 is stable (sharding must not change between releases)', () => {
  assert.equal(hash32('k17'), hash32('k17'));
  assert.notEqual(hash32('k17'), hash32('k18'));
  assert.notEqual(hash32('k17', 1), hash32('k17', 2));
  // Pinned values: changing these re-shards keys and changes every scenario's plan.
  assert.deepEqual([hash32(''), hash32('k0'), hash32('orders-12', 0x70726f63)], [2872998923, 1658131891, 1406624563]);
  assert.equal(Rng.from(1).nextU32(), 2338002475);
  assert.equal(Rng.from(1).fork('keys').nextU32(), 2476541770);
});
