import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyChange, cancels, changeAt, changeEvent, changeStateAt, eventsAreDeltas, type EntitySpec } from '../../harness/workload/changes.ts';
import { eventAt, stateAt, truth, type EntityState } from '../../harness/workload/entity.ts';

const spec = (kind: EntitySpec['kind'], cancelShare = 0.25): EntitySpec => ({ kind, events: 'change', cancelShare });

test('change events: the O(1) state at every version is the fold of the changes 1..v', () => {
  for (const kind of ['order', 'wallet', 'counter'] as const) {
    for (const key of ['k0', 'k1', 'k7', 'order-42', 'w9']) {
      let state: EntityState | undefined;
      for (let v = 1; v <= 30; v++) {
        state = applyChange(state, changeAt(spec(kind), key, v));
        assert.deepEqual(state, changeStateAt(spec(kind), key, v), `${kind} ${key} v${v}`);
      }
    }
  }
});

test('orders: PLACED, ADDRESS_CHANGED, then PAID..DELIVERED or CANCELLED (terminal) for a seeded share', () => {
  const keys = Array.from({ length: 2000 }, (_, i) => `k${i}`);
  const cancelled = keys.filter((k) => cancels(spec('order'), k));
  assert.ok(cancelled.length > 400 && cancelled.length < 600, `${cancelled.length} of 2000 cancelled at share 0.25`);
  assert.equal(keys.filter((k) => cancels(spec('order', 0), k)).length, 0);
  assert.equal(keys.filter((k) => cancels(spec('order', 1), k)).length, 2000);
  const open = keys.find((k) => !cancels(spec('order'), k))!;
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8].map((v) => changeEvent(spec('order'), open, v)), [
    'PLACED', 'ADDRESS_CHANGED', 'PAID', 'ADDRESS_CHANGED', 'SHIPPED', 'DELIVERED', 'NOTE_ADDED', 'NOTE_ADDED',
  ]);
  const gone = cancelled[0];
  assert.deepEqual([1, 2, 3, 4].map((v) => changeEvent(spec('order'), gone, v)), ['PLACED', 'ADDRESS_CHANGED', 'CANCELLED', 'NOTE_ADDED']);
  assert.equal(changeStateAt(spec('order'), gone, 40).status, 'CANCELLED');
  assert.equal(changeStateAt(spec('order'), gone, 40).note, 'note-40');
  assert.deepEqual(changeAt(spec('order'), gone, 4), { event: 'NOTE_ADDED', set: { note: 'note-4' } });
  // Each event carries only its change: PLACED the customer, an address change the city.
  assert.deepEqual(Object.keys(changeAt(spec('order'), open, 1).set!).sort(), ['city', 'customer', 'status']);
  assert.deepEqual(Object.keys(changeAt(spec('order'), open, 2).set!).sort(), ['city', 'status']);
  assert.deepEqual(changeAt(spec('order'), open, 3).set, { status: 'PAID' });
  // Three different cities, so any late address change is visible.
  const cities = new Set([1, 2, 4].map((v) => changeStateAt(spec('order'), open, v).city));
  assert.equal(cities.size, 3);
  // The payload's event name follows the events option.
  assert.equal(eventAt(spec('order'), gone, 3), 'CANCELLED');
  assert.equal(eventAt({ ...spec('order'), events: 'state' }, gone, 3), 'SHIPPED');
});

test('wallets carry signed amounts and counters increments: deltas; orders are not', () => {
  assert.deepEqual(changeAt(spec('counter'), 'k', 5), { event: 'INCREMENT', add: { count: 1 } });
  const amounts = [1, 2, 3, 4].map((v) => changeAt(spec('wallet'), 'k3', v).add!.balance);
  assert.ok(amounts[0] > 0 && amounts[1] < 0, `credit then debit: ${amounts}`);
  assert.equal(eventsAreDeltas(spec('wallet')), true);
  assert.equal(eventsAreDeltas(spec('counter')), true);
  assert.equal(eventsAreDeltas(spec('order')), false);
  assert.equal(eventsAreDeltas({ ...spec('wallet'), events: 'state' }), false);
});

test('truth with change events: a definitely refused message is left out of the fold', () => {
  const w = spec('wallet');
  const sends = [1, 2, 3, 4, 5].map((seq) => ({ key: 'k1', seq, ok: seq === 3 ? false : true }));
  const t = truth(w, sends).get('k1')!;
  const third = changeAt(w, 'k1', 3).add!.balance;
  assert.equal(t.version, 5);
  assert.deepEqual(t.state, { balance: (stateAt(w, 'k1', 5).balance as number) - third });
  // With nothing refused it is the closed form; whole-state events keep today's truth.
  assert.deepEqual(truth(w, sends.map((s) => ({ ...s, ok: true }))).get('k1')!.state, stateAt(w, 'k1', 5));
  assert.deepEqual(truth('wallet', sends).get('k1')!.state, stateAt('wallet', 'k1', 5));
  // A refused last message: the truth is the one before it.
  assert.deepEqual(truth(spec('order'), [{ key: 'a', seq: 1 }, { key: 'a', seq: 2, ok: false }]).get('a'), { version: 1, state: stateAt(spec('order'), 'a', 1) });
});
