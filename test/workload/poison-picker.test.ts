import { test } from 'node:test';
import assert from 'node:assert/strict';
import { poisonPicker } from '../../harness/workload/poison-picker.ts';
import { Rng } from '../../harness/workload/rng.ts';
import type { PoisonSpec } from '../../harness/spec/types.ts';

const spec = (policy: PoisonSpec['policy'], over: Partial<PoisonSpec> = {}): PoisonSpec => ({ share: 0.1, policy, maxAttempts: 3, backoffMs: 100, ...over });

test('poison picker: seeded share, given keys, one draw per message', () => {
  const pick = poisonPicker(spec('retry', { share: 0.2, keys: ['hot'] }), Rng.from(1).fork('poison'));
  let n = 0;
  for (let i = 0; i < 10_000; i++) if (pick(`k${i}`)) n++;
  assert.ok(Math.abs(n / 10_000 - 0.2) < 0.02);
  assert.equal(pick('hot'), true);
  const again = poisonPicker(spec('retry', { share: 0.2 }), Rng.from(1).fork('poison'));
  const replay = poisonPicker(spec('retry', { share: 0.2 }), Rng.from(1).fork('poison'));
  assert.deepEqual(Array.from({ length: 100 }, () => again('x')), Array.from({ length: 100 }, () => replay('y')));
});
