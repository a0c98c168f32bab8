import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decidePoison, PoisonTracker, retryBackoffMs } from '../../harness/consumer/poison.ts';
import { handlerTimeSampler, handlerFor, meanMs } from '../../harness/consumer/handler-time.ts';
import { Rng } from '../../harness/workload/rng.ts';
import type { PoisonSpec } from '../../harness/spec/types.ts';

const spec = (policy: PoisonSpec['policy'], over: Partial<PoisonSpec> = {}): PoisonSpec => ({ share: 0.1, policy, maxAttempts: 3, backoffMs: 100, ...over });
const none = new Set<string>();

test('not poison: handle, whatever the policy', () => {
  for (const p of ['retry', 'dead-letter', 'park-key'] as const) {
    assert.deepEqual(decidePoison(spec(p), { poison: false, key: 'k1', attempt: 1, parkedKeys: none }), { action: 'handle' });
  }
  assert.deepEqual(decidePoison(undefined, { poison: true, key: 'k1', attempt: 1, parkedKeys: none }), { action: 'handle' });
});

test('retry: block and retry with doubling backoff, give up to the dead letters after maxAttempts', () => {
  const s = spec('retry');
  const d = [1, 2, 3].map((attempt) => decidePoison(s, { poison: true, key: 'k', attempt, parkedKeys: none }));
  assert.deepEqual(d, [
    { action: 'retry', retryAfterMs: 100 },
    { action: 'retry', retryAfterMs: 200 },
    { action: 'give-up', settle: 'dead-letter' },
  ]);
  assert.equal(retryBackoffMs(1000, 10), 30_000);
});

test('dead-letter: at once', () => {
  assert.deepEqual(decidePoison(spec('dead-letter'), { poison: true, key: 'k', attempt: 1, parkedKeys: none }), { action: 'give-up', settle: 'dead-letter' });
});

test('park-key: the poison message parks its key; every later message of the key is parked, others go on', () => {
  const t = new PoisonTracker(spec('park-key'));
  assert.deepEqual(t.decide('k1', 1, false, 1), { action: 'handle' });
  assert.deepEqual(t.decide('k1', 2, true, 1), { action: 'park', settle: 'ack', parkKey: true });
  assert.deepEqual(t.decide('k1', 3, false, 1), { action: 'park', settle: 'ack', parkKey: false });
  assert.deepEqual(t.decide('k2', 1, false, 1), { action: 'handle' });
  assert.deepEqual([...t.parkedKeys], ['k1']);
  assert.deepEqual(t.parked, [{ key: 'k1', seq: 2 }, { key: 'k1', seq: 3 }]);
});

test('handler times: constant, uniform in range, exponential mean; overrides per consumer', () => {
  const r = Rng.from(2);
  assert.equal(handlerTimeSampler({ kind: 'constant', ms: 5 }, r)(), 5);
  const u = handlerTimeSampler({ kind: 'uniform', minMs: 2, maxMs: 4 }, r);
  for (let i = 0; i < 1000; i++) {
    const x = u();
    assert.ok(x >= 2 && x < 4);
  }
  const e = handlerTimeSampler({ kind: 'exponential', meanMs: 3 }, r);
  let s = 0;
  for (let i = 0; i < 50_000; i++) s += e();
  assert.ok(Math.abs(s / 50_000 - 3) < 0.1);
  assert.equal(handlerTimeSampler({ kind: 'exponential', meanMs: 0 }, r)(), 0);
  const group = { handler: { kind: 'constant' as const, ms: 1 }, overrides: { c2: { handler: { kind: 'constant' as const, ms: 50 } } } };
  assert.deepEqual(handlerFor(group, 'c1'), { kind: 'constant', ms: 1 });
  assert.deepEqual(handlerFor(group, 'c2'), { kind: 'constant', ms: 50 });
  assert.equal(meanMs({ kind: 'uniform', minMs: 2, maxMs: 4 }), 3);
  // Same seed, same handler times.
  const a = handlerTimeSampler({ kind: 'exponential', meanMs: 3 }, Rng.from(9).fork('consumer-c1'));
  const b = handlerTimeSampler({ kind: 'exponential', meanMs: 3 }, Rng.from(9).fork('consumer-c1'));
  assert.deepEqual([a(), a(), a()], [b(), b(), b()]);
});
