import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flakeRows } from '../../harness/runner/run-and-analyze.ts';

type Expectations = Parameters<typeof flakeRows>[0][number]['expectations'];

const wrongState = (expected: '0' | '>0', held: boolean, strategy: string) =>
  ({ type: 'wrong-state', expected, window: null, found: held === (expected === '0') ? 0 : 3, keys: 0, held, source: 'given' as const, strategy });

test('--repeat: two wrong-state expectations on different strategies are counted apart', () => {
  const run = (primaryHeld: boolean): { expectations: Expectations } => ({
    // As in rabbitmq-orders-competing-stall-state-machine: both expect >0, on two strategies.
    expectations: [wrongState('>0', primaryHeld, 'state-machine'), wrongState('>0', true, 'naive')],
  });
  const rows = flakeRows([run(true), run(false), run(true)]);
  assert.deepEqual(rows, [
    { label: 'wrong-state (state-machine) >0', held: 2, of: 3 },
    { label: 'wrong-state (naive) >0', held: 3, of: 3 },
  ]);
});

test('--repeat: a windowed expectation names its window; default "any" rows are left out', () => {
  const rows = flakeRows([
    {
      expectations: [
        { type: 'reorder', expected: '>0', window: { relation: 'during', fault: 'stall' }, found: 4, keys: 2, held: true, source: 'given' },
        { type: 'unseen', expected: 'any', window: null, found: 0, keys: 0, held: true, source: 'default' },
      ],
    },
  ]);
  assert.deepEqual(rows, [{ label: 'reorder during stall >0', held: 1, of: 1 }]);
});
