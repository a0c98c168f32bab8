/** The final pass's reusable scratch columns (scratch.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Scratch } from '../../harness/checker/scratch.ts';

test('scratch: exact lengths, one buffer per slot reused, separate slots, growth past capacity', () => {
  const s = new Scratch(10);
  const a = s.f64(0, 10);
  assert.equal(a.length, 10);
  a.fill(1);
  const b = s.f64(0, 4);
  assert.equal(b.length, 4);
  assert.equal(b.buffer, a.buffer, 'the same memory again');
  const c = s.f64(1, 10);
  assert.notEqual(c.buffer, a.buffer, 'another slot is other memory');
  const big = s.i32(0, 25);
  assert.equal(big.length, 25);
  assert.equal(s.i32(0, 25).buffer, big.buffer);
  assert.equal(s.u8(0, 0).length, 0);
});
