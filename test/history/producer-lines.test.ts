/** The producer's prepared history lines are exactly what JSON.stringify writes for the same events. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ackLine, sendLine } from '../../harness/history/producer-lines.ts';

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
