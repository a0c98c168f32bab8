/** The prepared history lines (producer's send and ack, consumer's process) are exactly what JSON.stringify writes for the same events. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ackLine, processLine, sendLine } from '../../harness/history/lines.ts';
import { deliveryEvent, processEvent } from '../../harness/roles/consumer/process-event.ts';
import type { Delivery } from '../../harness/broker/contract.ts';
import type { DecodedMessage } from '../../harness/workload/codec.ts';

const text = fc.string({ unit: 'grapheme', maxLength: 12 });
const int = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
const oneOf = fc.oneof(int, fc.double({ noNaN: false }), fc.constantFrom(0, -0, 1e21, 1.5));

test('send lines equal JSON.stringify of the send event', () => {
  fc.assert(
    fc.property(text, text, int, int, oneOf, text, int, (key, producer, seq, at, intended, proc, size) => {
      const expected = JSON.stringify({ type: 'send', key, producer, seq, at, intended, process: proc, size });
      assert.equal(sendLine(key, producer, seq, at, intended, proc, size), expected);
      JSON.parse(expected);
    }),
  );
  assert.equal(sendLine('k"\\\n\u2028é', 'p', 1, 2, 3, 'p-1', 4), JSON.stringify({ type: 'send', key: 'k"\\\n\u2028é', producer: 'p', seq: 1, at: 2, intended: 3, process: 'p-1', size: 4 }));
});

test('ack lines equal JSON.stringify of the ack event, lane and offset optional', () => {
  fc.assert(
    fc.property(text, text, int, int, fc.option(text, { nil: undefined }), fc.option(oneOf, { nil: undefined }), int, (key, producer, seq, at, lane, offset, sent) => {
      const expected = JSON.stringify({ type: 'ack', key, producer, seq, at, ok: true, lane, offset, sent });
      assert.equal(ackLine(key, producer, seq, at, lane, offset, sent), expected);
    }),
  );
});

test('numbers print as JSON prints them, around the two-halves fast path', () => {
  for (const n of [0, 1, 2147483647, 2147483648, 99999999, 100000000, 1764500000000000, 1764500000000001.5, 9007199254740991, 9007199254740992, 1e21, -5, -1764500000000000, NaN, Infinity]) {
    assert.equal(sendLine('k', 'p', 1, n, n, 'p-1', 1), JSON.stringify({ type: 'send', key: 'k', producer: 'p', seq: 1, at: n, intended: n, process: 'p-1', size: 1 }), String(n));
  }
});

test('process lines equal JSON.stringify of the events the consumer makes, as it completes them', () => {
  const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
  fc.assert(
    fc.property(
      fc.record({ key: text, producer: text, seq: int, intendedUs: maybe(int), stampMs: maybe(oneOf) }),
      fc.record({ lane: maybe(text), offset: maybe(int), deliveryCount: maybe(fc.integer({ min: 0, max: 100 })) }),
      text, int, int,
      fc.record({ end: maybe(int), outcome: maybe(fc.constantFrom('ok', 'error') as fc.Arbitrary<'ok' | 'error'>), effect: maybe(fc.constantFrom('applied', 'skipped', 'rejected', 'conflated') as fc.Arbitrary<'applied'>), batch: maybe(fc.integer({ min: 1, max: 9 })), held: maybe(int) }),
      fc.boolean(),
      (msg, d, consumer, received, start, after, viaBase) => {
        const delivery = { ...d, payload: Buffer.alloc(0), settle: async () => {} } as Delivery;
        const decoded = { ...msg, entity: 'counter', poison: false, event: 'e', size: 1 } as DecodedMessage;
        const ev = viaBase
          ? processEvent({ key: msg.key, producer: msg.producer, seq: msg.seq, consumer, lane: d.lane, offset: d.offset, deliveryCount: d.deliveryCount, intended: msg.intendedUs, stamp: msg.stampMs }, received, start)
          : deliveryEvent(consumer, delivery, decoded, received, start);
        ev.end = after.end;
        ev.outcome = after.outcome;
        ev.effect = after.effect;
        if (after.batch !== undefined) ev.batch = after.batch;
        if (after.held !== undefined) ev.held = after.held;
        assert.equal(processLine(ev), JSON.stringify(ev));
      },
    ),
  );
  // An undecodable message: key, producer and seq null.
  const ev = processEvent({ key: null, producer: null, seq: null, consumer: 'c1', lane: 'p0', offset: 3, deliveryCount: undefined, intended: undefined, stamp: undefined }, 10, 11);
  assert.equal(processLine(ev), JSON.stringify(ev));
  assert.match(processLine(ev), /"key":null,"producer":null,"seq":null/);
});
