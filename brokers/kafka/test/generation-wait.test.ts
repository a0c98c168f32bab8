import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GenerationWait } from '../generation-wait.ts';

test('an assignment after its join line is recorded at once, with that generation', () => {
  const g = new GenerationWait();
  const got: (number | undefined)[] = [];
  g.joined(3);
  g.assign((gen) => got.push(gen));
  assert.deepEqual([...got], [3]);
});

test('an assignment that reaches JavaScript before its join line waits for it, and the loop with it', async () => {
  const g = new GenerationWait();
  const got: (number | undefined)[] = [];
  g.joined(1);
  g.assign((gen) => got.push(gen));
  // The next rebalance: the callback comes first (a loaded machine), the line after.
  g.assign((gen) => got.push(gen));
  let loopWent = false;
  const loop = g.settled.then(() => (loopWent = true));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual([...got], [1], 'not recorded with the old generation');
  assert.equal(loopWent, false, 'the consume loop waits');
  g.joined(2);
  await loop;
  assert.deepEqual([...got], [1, 2]);
});

test('a revocation settles a waiting assignment first; a line that never comes ends the wait', async () => {
  const g = new GenerationWait(20);
  const got: (number | undefined)[] = [];
  g.joined(5);
  g.assign((gen) => got.push(gen));
  g.assign((gen) => got.push(gen));
  g.settle(); // what the revocation does before it records itself
  assert.deepEqual([...got], [5, 5]);
  g.assign((gen) => got.push(gen));
  await g.settled; // no line: the 20 ms wait ends it
  assert.deepEqual([...got], [5, 5, 5]);
});
