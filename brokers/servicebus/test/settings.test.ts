import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveSettings, isoDuration } from '../settings.ts';
import { InputError } from '../../../harness/errors.ts';

test('servicebus settings: defaults filled, typos refused with the allowed fields', () => {
  const s = resolveSettings({ kind: 'servicebus' });
  assert.equal(s.sessions, true);
  assert.equal(s.lockDurationMs, 30_000);
  assert.equal(s.autoLockRenewal, true);
  assert.equal(s.returnSessionOnFailure, true, 'a requeue gives the rest of its session batch back, as SQS FIFO does its group');
  assert.throws(
    () => resolveSettings({ kind: 'servicebus', sesions: false }),
    (e: InputError) => e instanceof InputError && /broker: unknown field "sesions" \(allowed: kind, sessions,/.test(e.detail.join('\n')),
  );
  assert.throws(() => resolveSettings({ kind: 'servicebus', lockDurationMs: 10 }), InputError);
  assert.equal(isoDuration(2_000), 'PT2S');
});
