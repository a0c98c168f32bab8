/** The per-key plot's tags: hand-made cases, and agreement with the checker on random histories. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Checker } from '../../harness/checker/checker.ts';
import { tagKeyEvents, type KeyProcessEvent } from '../../harness/report/key-order.ts';

const ev = (seq: number, end: number | null, over: Partial<KeyProcessEvent> = {}): KeyProcessEvent => ({
  producer: 'p', seq, consumer: 'c1', lane: 'l0', offset: seq, start: (end ?? 1000) - 1, end, outcome: 'ok', ...over,
});
const tagsBySeq = (events: KeyProcessEvent[], failed?: Set<string>) => tagKeyEvents(events, failed).map((p) => [p.seq, p.tags]);

describe('per-key tags', () => {
  test('an in-order stream has no tags', () => {
    assert.deepEqual(tagsBySeq([ev(1, 10), ev(2, 20), ev(3, 30)]), [[1, []], [2, []], [3, []]]);
  });

  test('a first apply landing after a newer one is a reorder; equal ends are not', () => {
    assert.deepEqual(tagsBySeq([ev(2, 10), ev(1, 20)]), [[2, []], [1, ['reorder']]]);
    assert.deepEqual(tagsBySeq([ev(2, 10, { start: 10 }), ev(1, 10, { start: 10, consumer: 'c2' })]), [[2, []], [1, []]]);
  });

  test('a repeat is a duplicate, and a regression when a newer one landed before it', () => {
    assert.deepEqual(tagsBySeq([ev(1, 10), ev(1, 20, { consumer: 'c2' })]), [[1, []], [1, ['duplicate']]]);
    assert.deepEqual(tagsBySeq([ev(1, 10), ev(2, 20), ev(1, 30, { consumer: 'c2' })]), [[1, []], [2, []], [1, ['regression', 'duplicate']]]);
  });

  test('a hole before a first apply is a gap unless the missing send definitely failed', () => {
    assert.deepEqual(tagsBySeq([ev(1, 10), ev(3, 20)]), [[1, []], [3, ['gap']]]);
    assert.deepEqual(tagsBySeq([ev(1, 10), ev(3, 20)], new Set(['p\u00002'])), [[1, []], [3, []]]);
  });

  test('errors and attempts that never ended are tagged and are not applies', () => {
    const points = tagKeyEvents([ev(1, 10, { outcome: 'error' }), ev(1, 20), ev(2, null)]);
    assert.deepEqual(points.map((p) => [p.seq, p.tags]), [[1, ['error']], [1, []], [2, ['incomplete']]]);
  });

  test('an attempt starting while another one of the key runs is an overlap', () => {
    const points = tagKeyEvents([ev(1, 20, { start: 0 }), ev(2, 30, { start: 10, consumer: 'c2' }), ev(3, 40, { start: 30 })]);
    assert.deepEqual(points.map((p) => [p.seq, p.tags]), [[1, []], [2, ['overlap']], [3, []]]);
    const same = tagKeyEvents([ev(1, 20, { start: 5 }), ev(2, 30, { start: 5, consumer: 'c2' })]);
    assert.deepEqual(same.map((p) => p.tags), [['overlap'], ['overlap']]);
  });

  test('producers number separate streams', () => {
    const events = [ev(1, 10, { producer: 'a' }), ev(2, 20, { producer: 'a' }), ev(1, 30, { producer: 'b' })];
    assert.deepEqual(tagsBySeq(events), [[1, []], [2, []], [1, []]]);
  });

  test('tag counts equal the checker\'s reorder, regression, duplicate, gap and overlap counts on random histories', () => {
    const event = fc.record({
      producer: fc.constantFrom('a', 'b'),
      seq: fc.integer({ min: 1, max: 6 }),
      consumer: fc.constantFrom('c1', 'c2'),
      start: fc.integer({ min: 0, max: 40 }),
      len: fc.integer({ min: 0, max: 15 }),
      outcome: fc.constantFrom<'ok' | 'error'>('ok', 'ok', 'ok', 'error'),
      ended: fc.constantFrom(true, true, true, false),
    });
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 25 }), (raw) => {
        const events: KeyProcessEvent[] = raw.map((r, i) => ({
          producer: r.producer, seq: r.seq, consumer: r.consumer, lane: 'l0', offset: i, start: r.start, end: r.ended ? r.start + r.len : null, outcome: r.outcome,
        }));
        const checker = new Checker({ settleMs: 0 });
        for (const p of ['a', 'b']) for (let s = 1; s <= 6; s++) {
          checker.add({ type: 'send', key: 'k', producer: p, seq: s, at: 0 });
          checker.add({ type: 'ack', key: 'k', producer: p, seq: s, at: 0, ok: true });
        }
        for (const e of events) {
          checker.add({ type: 'process', key: 'k', producer: e.producer, seq: e.seq, consumer: e.consumer, lane: e.lane, offset: e.offset, received: e.start, start: e.start, ...(e.end === null ? {} : { end: e.end }), outcome: e.outcome });
        }
        const outcome = checker.finish();
        const tags = tagKeyEvents(events).flatMap((p) => p.tags);
        for (const type of ['reorder', 'regression', 'duplicate', 'gap', 'overlap'] as const) {
          assert.equal(tags.filter((t) => t === type).length, outcome.anomalies[type].count, type);
        }
      }),
      { numRuns: 300, seed: 20261130 },
    );
  });
});
