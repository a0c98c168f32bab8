import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spread, wilson } from '../../harness/matrix/stats.ts';

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 5e-4, `${a} vs ${b}`);

test('Wilson 95% intervals match published values', () => {
  // Reference values (Newcombe 1998 / any stats package): 0 of 5, 5 of 5, 8 of 10, 1 of 20.
  const [a0, a1] = wilson(0, 5);
  close(a0, 0);
  close(a1, 0.4345);
  const [b0, b1] = wilson(5, 5);
  close(b0, 0.5655);
  close(b1, 1);
  const [c0, c1] = wilson(8, 10);
  close(c0, 0.4902);
  close(c1, 0.9433);
  const [d0, d1] = wilson(1, 20);
  close(d0, 0.0089);
  close(d1, 0.2361);
  assert.deepEqual(wilson(0, 0), [0, 1]);
});

test('spread: median of an even count is the middle pair\'s mean; non-numbers are left out', () => {
  assert.deepEqual(spread([4, 1, 3, 2]), { median: 2.5, min: 1, max: 4, n: 4 });
  assert.deepEqual(spread([5, NaN, 1, 3]), { median: 3, min: 1, max: 5, n: 3 });
  assert.equal(spread([NaN]), null);
});
