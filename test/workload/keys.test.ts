import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../harness/workload/rng.ts';
import { keyChooser, keyName, harmonic, ZIPF_TABLE_LIMIT } from '../../harness/workload/keys.ts';
import type { Distribution } from '../../harness/spec/types.ts';

function counts(count: number, distribution: Distribution, n: number, seed = 1): number[] {
  const c = keyChooser({ count, distribution });
  const rng = Rng.from(seed).fork('keys');
  const out = new Array<number>(count).fill(0);
  for (let i = 0; i < n; i++) {
    const k = c.pick(rng, i);
    assert.ok(k >= 0 && k < count);
    out[k]++;
  }
  return out;
}

test('zipf s=1.2 over 1000 keys: top key share near 1/H(1000, 1.2)', () => {
  const N = 200_000;
  const c = counts(1000, { kind: 'zipf', s: 1.2 }, N);
  const expectedTop = 1 / harmonic(1000, 1.2); // ≈ 0.2
  assert.ok(Math.abs(c[0] / N - expectedTop) < 0.01, `top share ${c[0] / N} vs ${expectedTop}`);
  const expectedSecond = 2 ** -1.2 * expectedTop;
  assert.ok(Math.abs(c[1] / N - expectedSecond) < 0.01, `second ${c[1] / N} vs ${expectedSecond}`);
  const top10 = c.slice(0, 10).reduce((a, b) => a + b, 0) / N;
  let expected10 = 0;
  for (let k = 1; k <= 10; k++) expected10 += k ** -1.2 * expectedTop;
  assert.ok(Math.abs(top10 - expected10) < 0.01, `top 10 ${top10} vs ${expected10}`);
  // The ranks really decrease.
  assert.ok(c[0] > c[1] && c[1] > c[2] && c[2] > c[9] && c[9] > c[99]);
});

test('zipf with more keys than the table limit uses rejection-inversion with the same shape', () => {
  const n = ZIPF_TABLE_LIMIT + 1000;
  const chooser = keyChooser({ count: n, distribution: { kind: 'zipf', s: 1.1 } });
  const rng = Rng.from(3);
  const N = 200_000;
  const c = new Map<number, number>();
  for (let i = 0; i < N; i++) {
    const k = chooser.pick(rng, i);
    assert.ok(k >= 0 && k < n);
    c.set(k, (c.get(k) ?? 0) + 1);
  }
  for (const k of [0, 1, 4]) {
    const p = chooser.probability(k);
    const got = (c.get(k) ?? 0) / N;
    assert.ok(Math.abs(got - p) < 0.01, `rank ${k + 1}: ${got} vs ${p}`);
  }
});

test('hotspot: 70% on 1 key gives ~70%, the rest uniform', () => {
  const N = 100_000;
  const c = counts(1000, { kind: 'hotspot', hotKeys: 1, share: 0.7 }, N);
  assert.ok(Math.abs(c[0] / N - 0.7) < 0.01, `hot share ${c[0] / N}`);
  const cold = c.slice(1);
  const meanCold = cold.reduce((a, b) => a + b, 0) / cold.length;
  assert.ok(Math.abs(meanCold - (0.3 * N) / 999) < 1);
  assert.ok(Math.max(...cold) < 0.002 * N);
  const three = counts(100, { kind: 'hotspot', hotKeys: 3, share: 0.9 }, N);
  const hot = three[0] + three[1] + three[2];
  assert.ok(Math.abs(hot / N - 0.9) < 0.01);
  for (const k of [0, 1, 2]) assert.ok(Math.abs(three[k] / N - 0.3) < 0.01);
});

test('uniform spreads evenly; single puts everything on key 0', () => {
  const N = 100_000;
  const u = counts(100, { kind: 'uniform' }, N);
  for (const x of u) assert.ok(Math.abs(x - 1000) < 150, `bucket ${x}`);
  const s = counts(10, { kind: 'single' }, 1000);
  assert.equal(s[0], 1000);
});

test('round-robin: message i on key i mod count, whatever the random stream', () => {
  const c = keyChooser({ count: 4, distribution: { kind: 'round-robin' } });
  const picks = Array.from({ length: 10 }, (_, i) => c.pick(Rng.from(i), i));
  assert.deepEqual(picks, [0, 1, 2, 3, 0, 1, 2, 3, 0, 1]);
  assert.deepEqual(counts(7, { kind: 'round-robin' }, 21), [3, 3, 3, 3, 3, 3, 3]);
});

test('probabilities sum to 1 and key names are prefix + index', () => {
  for (const d of [{ kind: 'uniform' }, { kind: 'zipf', s: 0.8 }, { kind: 'hotspot', hotKeys: 5, share: 0.5 }, { kind: 'single' }, { kind: 'round-robin' }] as Distribution[]) {
    const c = keyChooser({ count: 50, distribution: d });
    let sum = 0;
    for (let i = 0; i < 50; i++) sum += c.probability(i);
    assert.ok(Math.abs(sum - 1) < 1e-9, `${d.kind}: ${sum}`);
  }
  assert.equal(keyName('order-', 17), 'order-17');
});
