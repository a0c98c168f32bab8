import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spread, wilson } from '../../harness/matrix/stats.ts';

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 5e-4, `${a} vs ${b}`);

test('Wilson 95% intervals match published values', () => {
  // Reference values (Newcombe 1998 / any stats package): 0 of 5, 5 of 5, 8 of 10, 1 of 20.
  const cases: [number, number, number, number][] = [[0, 5, 0, 0.4345], [5, 5, 0.5655, 1], [8, 10, 0.4902, 0.9433], [1, 20, 0.0089, 0.2361]];
  for (const [k, n, lo, hi] of cases) {
    const [a, b] = wilson(k, n);
    close(a, lo);
    close(b, hi);
  }
  assert.deepEqual(wilson(0, 0), [0, 1]);
});

test('spread: median of an even count is the middle pair\'s mean; non-numbers are left out', () => {
  assert.deepEqual(spread([4, 1, 3, 2]), { median: 2.5, min: 1, max: 4, n: 4 });
  assert.deepEqual(spread([5, NaN, 1, 3]), { median: 3, min: 1, max: 5, n: 3 });
  assert.equal(spread([NaN]), null);
});
