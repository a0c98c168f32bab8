/**
 * The consumer worker's process events (harness/roles/consumer/process-event.ts) are written out by
 * hand for speed: their JSON must stay byte for byte what the spread they replace gave.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Delivery } from '../../../harness/broker/contract.ts';
import { deliveryEvent, processEvent, type ProcessBase } from '../../../harness/roles/consumer/process-event.ts';
import { processBase } from '../../../harness/roles/consumer/grouped-handling.ts';
import { decodeMessage, encodeMessage } from '../../../harness/workload/codec.ts';

const bases: ProcessBase[] = [
  { key: 'k1', producer: 'p1', seq: 3, consumer: 'c1', lane: 'p0', offset: 42, deliveryCount: 2, intended: 1_764_657_600_123_456, stamp: 1_764_657_600_123 },
  // an undecodable message on a broker without offsets or counts
  { key: null, producer: null, seq: null, consumer: 'c2', lane: 'q', offset: undefined, deliveryCount: undefined, intended: undefined },
];

for (const base of bases) {
  for (const effect of ['applied', 'skipped', undefined] as const) {
    test(`process event JSON as the spread gave it (key ${base.key}, effect ${effect})`, () => {
      const spread: Record<string, unknown> = { type: 'process', ...base, received: 10, start: 11, end: 0, outcome: 'ok' };
      const ev = processEvent(base, 10, 11);
      if (effect) {
        spread.effect = effect;
        ev.effect = effect;
      }
      spread.end = ev.end = 12;
      assert.equal(JSON.stringify(ev), JSON.stringify(spread));
    });
  }
}

test('deliveryEvent is processEvent of processBase, byte for byte, with and without the optional fields', () => {
  const d = { lane: 'p1', offset: 7, deliveryCount: 1 } as unknown as Delivery;
  const bare = { lane: 'p2' } as unknown as Delivery;
  const msgs = [
    decodeMessage(encodeMessage({ producer: 'p', key: 'k9', seq: 4, entity: 'counter', intendedUs: 1_764_657_600_123_456, stampMs: 1_764_657_600_123, poison: false }, 64))!,
    decodeMessage(encodeMessage({ producer: 'p', key: 'k9', seq: 4, entity: 'counter', poison: false }, 64))!,
  ];
  for (const msg of msgs) {
    for (const delivery of [d, bare]) {
      const a = deliveryEvent('c1', delivery, msg, 10, 11);
      const b = processEvent(processBase('c1', delivery, msg), 10, 11);
      a.effect = b.effect = 'applied';
      a.end = b.end = 12;
      assert.equal(JSON.stringify(a), JSON.stringify(b));
    }
  }
});
