import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entityOf, subKeyOf } from '../../harness/workload/split.ts';
import { MessagePlan } from '../../harness/workload/schedule.ts';
import { entityOrder } from '../../harness/checker/entity-order.ts';

test('split keys: an entity\'s events go to its sub-keys in turn, seq numbered per sub-key, and map back', () => {
  const subs = [1, 2, 3, 4, 5, 6, 7].map((v) => subKeyOf('k3', v, 3));
  assert.deepEqual(subs.map((s) => `${s.key}#${s.seq}`), ['k3/0#1', 'k3/1#1', 'k3/2#1', 'k3/0#2', 'k3/1#2', 'k3/2#2', 'k3/0#3']);
  for (const [v, s] of subs.entries()) assert.deepEqual(entityOf(s.key, s.seq, 3), { key: 'k3', seq: v + 1 });
  assert.deepEqual(entityOf('k3', 5, undefined), { key: 'k3', seq: 5 }, 'not split: itself');
});

test('a split plan numbers each sub-key from 1 without holes (the checker sees no false gaps) and carries the entity and version', () => {
  const plan = new MessagePlan({
    seed: 1,
    workload: { keys: { count: 3, distribution: { kind: 'uniform' }, prefix: 'k', split: 2 }, rate: { kind: 'fixed', perSecond: 100 }, size: { kind: 'fixed', bytes: 64 }, messages: 60, warmupMs: 0, producers: [{ name: 'p', processes: 1, sharedKeys: false }] },
  } as never);
  const last = new Map<string, number>();
  const versions = new Map<string, number>();
  for (const m of plan.messages()) {
    assert.equal(m.seq, (last.get(m.key) ?? 0) + 1, `${m.key} seq ${m.seq}`);
    last.set(m.key, m.seq);
    assert.equal(m.version, (versions.get(m.entity) ?? 0) + 1);
    versions.set(m.entity, m.version);
    assert.deepEqual(entityOf(m.key, m.seq, 2), { key: m.entity, seq: m.version });
  }
  assert.ok([...last.keys()].every((k) => /^k\d\/[01]$/.test(k)));
});

test('entity order: an apply that commits after a later version of its entity is out of order', () => {
  const r = entityOrder(
    [
      { key: 'a', seq: 1, end: 10 },
      { key: 'a', seq: 3, end: 20 },
      { key: 'a', seq: 2, end: 30 },
      { key: 'b', seq: 1, end: 5 },
      { key: 'b', seq: 2, end: 6 },
    ],
    2,
  );
  assert.deepEqual(r, { split: 2, entities: 2, outOfOrder: 1, entitiesOutOfOrder: 1, examples: [{ entity: 'a', version: 2, after: 3 }] });
});
