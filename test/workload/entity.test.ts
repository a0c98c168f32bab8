import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entityEvent, entityStateAt, stateJson, truth } from '../../harness/workload/entity.ts';

test('order lifecycle: PLACED, PAID, SHIPPED, DELIVERED, then updates', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map((v) => entityEvent('order', v)), ['PLACED', 'PAID', 'SHIPPED', 'DELIVERED', 'ADDRESS_CHANGED', 'NOTE_ADDED', 'ADDRESS_CHANGED']);
  assert.equal(entityStateAt('order', 'k1', 2).status, 'PAID');
  const s9 = entityStateAt('order', 'k1', 9);
  assert.deepEqual({ status: s9.status, address: s9.address, notes: s9.notes }, { status: 'DELIVERED', address: 'addr-9', notes: 2 });
  assert.equal(entityStateAt('order', 'k1', 10).address, 'addr-9');
  assert.equal(entityStateAt('order', 'k1', 10).notes, 3);
  // Every version is a different state: an old message applied late is visible.
  const seen = new Set<string>();
  for (let v = 1; v <= 50; v++) seen.add(stateJson(entityStateAt('order', 'k1', v)));
  assert.equal(seen.size, 50);
});

test('wallet: the closed-form balance equals the running sum of credits and debits', () => {
  for (const key of ['k0', 'k1', 'wallet-99']) {
    let balance = 0;
    for (let v = 1; v <= 40; v++) {
      const s = entityStateAt('wallet', key, v);
      balance += s.last as number;
      assert.equal(s.balance, balance, `${key} v${v}`);
      assert.equal(entityEvent('wallet', v), (s.last as number) > 0 ? 'CREDIT' : 'DEBIT');
    }
  }
  assert.deepEqual(entityStateAt('counter', 'k', 7), { count: 7 });
});

test('truth: the state after every message whose send did not definitely fail, in seq order', () => {
  const t = truth('order', [
    { key: 'a', seq: 1, ok: true },
    { key: 'a', seq: 3, ok: null }, // unknown outcome: counts
    { key: 'a', seq: 2, ok: true },
    { key: 'b', seq: 1, ok: true },
    { key: 'b', seq: 2, ok: false }, // definitely failed: left out
    { key: 'c', seq: 1, ok: false },
    { key: 'd', seq: 1 }, // no ack at all: unknown, counts
  ]);
  assert.deepEqual([...t.keys()], ['a', 'b', 'd']);
  assert.deepEqual(t.get('a'), { version: 3, state: entityStateAt('order', 'a', 3) });
  assert.deepEqual(t.get('b'), { version: 1, state: entityStateAt('order', 'b', 1) });
  assert.equal(t.get('d')?.version, 1);
});

test('stateJson: keys sorted whatever order the state has them in (array-index keys too); a state already in order comes out as it is', () => {
  const sortedCopy = (s: Record<string, unknown>) => JSON.stringify(Object.fromEntries(Object.keys(s).sort().map((k) => [k, s[k]])));
  const states: Record<string, unknown>[] = [
    {},
    { a: 1 },
    { amount: 5, balance: 10, status: 'OPEN' },
    { status: 'OPEN', amount: 5, balance: 10 },
    { b: { z: 1, a: 2 }, a: [3, 1] },
    { '10': 'x', '9': 'y', a: 1 },
    { b: 1, '2': 2, a: 3 },
  ];
  for (const s of states) assert.equal(stateJson(s as never), sortedCopy(s), JSON.stringify(s));
  assert.equal(stateJson({ status: 'OPEN', amount: 5 } as never), '{"amount":5,"status":"OPEN"}');
  for (const kind of ['order', 'wallet', 'counter'] as const) {
    for (let v = 1; v <= 12; v++) {
      const s = entityStateAt(kind, 'k3', v);
      assert.equal(stateJson(s), sortedCopy(s as never));
    }
  }
});
