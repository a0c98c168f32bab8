/** A consumer's prepared process lines are exactly what JSON.stringify writes for the same events. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Delivery } from '../../harness/broker/contract.ts';
import { processLine } from '../../harness/history/process-line.ts';
import { deliveryEvent, processEvent, type ProcessBase } from '../../harness/roles/consumer/process-event.ts';
import { decodeMessage, encodeMessage } from '../../harness/workload/codec.ts';

const text = fc.string({ unit: 'grapheme', maxLength: 12 });
const int = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
const number = fc.oneof(int, fc.double({ noNaN: false }), fc.constantFrom(0, -0, 1e21, 1.5, 1_764_657_600_123_456));
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const effect = maybe(fc.constantFrom('applied', 'skipped', 'rejected', 'skipped-stale', 'conflated') as fc.Arbitrary<'applied'>);

test('process lines equal JSON.stringify of processEvent, every optional field present or not', () => {
  fc.assert(
    fc.property(
      fc.record({ key: fc.option(text), producer: fc.option(text), seq: fc.option(int), consumer: text, lane: maybe(text), offset: maybe(number), deliveryCount: maybe(int), intended: maybe(number), stamp: maybe(number) }),
      number, number, maybe(number), maybe(fc.constantFrom('ok', 'error') as fc.Arbitrary<'ok'>), effect,
      (base, received, start, end, outcome, eff) => {
        const ev = processEvent(base as ProcessBase, received, start);
        ev.end = end;
        ev.outcome = outcome;
        ev.effect = eff;
        assert.equal(processLine(ev), JSON.stringify(ev));
      },
    ),
  );
  const odd = processEvent({ key: 'k"\\\n\u2028é', producer: 'p"', seq: 1, consumer: 'c\u0001', lane: 'l\\', offset: 2, deliveryCount: 1, intended: 3, stamp: 4 }, 5, 6);
  assert.equal(processLine(odd), JSON.stringify(odd));
});

test('process lines of the consumer usual event (deliveryEvent) and of batch and held fields', () => {
  const msg = decodeMessage(encodeMessage({ producer: 'p', key: 'k9', seq: 4, entity: 'counter', intendedUs: 1_764_657_600_123_456, stampMs: 1_764_657_600_123, poison: false }, 64))!;
  for (const d of [{ lane: 'p1', offset: 7, deliveryCount: 1 }, { lane: 'p2' }] as unknown as Delivery[]) {
    const ev = deliveryEvent('c1', d, msg, 1_764_657_600_200_000, 1_764_657_600_200_001);
    assert.equal(processLine(ev), JSON.stringify(ev));
    ev.effect = 'applied';
    ev.end = 1_764_657_600_200_009;
    assert.equal(processLine(ev), JSON.stringify(ev));
    // Repeated names come from memory: the same text again.
    assert.equal(processLine(ev), JSON.stringify(ev));
  }
  const withBatch = { ...processEvent({ key: 'k', producer: 'p', seq: 1, consumer: 'c1', lane: 'p0', offset: 1, deliveryCount: 1, intended: 1, stamp: undefined }, 2, 3), effect: 'applied' as const, batch: 3, held: 1 };
  assert.equal(processLine(withBatch), JSON.stringify(withBatch));
});
