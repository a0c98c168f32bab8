/**
 * add() stores a well-formed event straight from its object (HistoryStore.ingestObject) and
 * takes anything else through Fields, as lines are. The two must never disagree: same error
 * for a bad event, same stored history, so the same anomalies.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FinalPass } from '../../harness/checker/analysis.ts';
import { renderAnomalies } from '../../harness/checker/examples.ts';
import { Fields } from '../../harness/checker/lineParser.ts';
import { HistoryStore, MAX_SEQ, WHOLE_EVENT } from '../../harness/checker/history-columns.ts';
import { historyArb, type Ev } from './helpers.ts';

/** Feeds events to two stores, one through the fast path; returns what each said and found. */
function both(events: Ev[]): { fast: string; fields: string; taken: number } {
  const fast = new HistoryStore();
  const slow = new HistoryStore();
  const f = new Fields();
  const reasons: [string | null, string | null][] = [];
  let taken = 0;
  for (const e of events) {
    let r: string | null = null;
    if (fast.ingestObject(e)) taken++;
    else {
      f.fromObject(e);
      r = fast.ingest(f);
      if (r === WHOLE_EVENT) r = fast.ingestWhole(e);
    }
    f.fromObject(e);
    let s = slow.ingest(f);
    if (s === WHOLE_EVENT) s = slow.ingestWhole(e);
    reasons.push([r, s]);
  }
  const judge = (s: HistoryStore) => {
    s.seal();
    const pass = new FinalPass(s, 5);
    pass.run();
    return JSON.stringify({ anomalies: renderAnomalies(pass), occ: pass.occurrences.list(), keys: s.keys.size, producers: s.producers.size, counted: s.counted, ignored: s.ignored });
  };
  return {
    fast: JSON.stringify(reasons.map((r) => r[0])) + judge(fast),
    fields: JSON.stringify(reasons.map((r) => r[1])) + judge(slow),
    taken,
  };
}

/** Values a member may hold in-process, JSON or not. */
const odd = fc.constantFrom<unknown>(
  undefined, null, true, false, 0, -0, 1, 1.5, -1, NaN, Infinity, -Infinity, MAX_SEQ, MAX_SEQ + 1, 2 ** 53,
  '', 'k', '41', '-3.5', 'x1', 'ok', 'error', 'OK', [], {}, [1], { a: 1 },
);

/** A history from `arb` with some members replaced by odd values. */
const damage = (arb: fc.Arbitrary<Ev[]>) => arb.chain((events) =>
  fc
    .array(
      fc.record({
        at: fc.nat(),
        member: fc.constantFrom('key', 'producer', 'seq', 'at', 'ok', 'consumer', 'lane', 'offset', 'start', 'end', 'outcome', 'type'),
        value: odd,
      }),
      { maxLength: 6 },
    )
    .map((edits) => {
      const out = events.map((e) => ({ ...e }));
      if (out.length > 0) for (const { at, member, value } of edits) out[at % out.length][member] = value;
      return out;
    }),
);

test('object fast path: same errors and same history as the Fields path, for plain and damaged events', () => {
  let taken = 0;
  fc.assert(
    fc.property(damage(historyArb({ maxEvents: 30 })), (events) => {
      const r = both(events);
      assert.equal(r.fast, r.fields);
      taken += r.taken;
    }),
    { numRuns: 600 },
  );
  assert.ok(taken > 1000, `the fast path took ${taken} events: the property would not test it`);
});

test('object fast path: the same where ack lanes decide lost or unseen', () => {
  fc.assert(
    fc.property(damage(historyArb({ maxEvents: 30, undelivered: true })), (events) => {
      const r = both(events);
      assert.equal(r.fast, r.fields);
    }),
    { numRuns: 400 },
  );
});

test('object fast path: hand-picked members it leaves to the Fields path', () => {
  const send = { type: 'send', key: 'k', producer: 'p', seq: 1, at: 1 };
  const proc = { type: 'process', key: 'k', producer: 'p', seq: 1, start: 5, end: 6, outcome: 'ok', consumer: 'c', lane: 'l', offset: 3 };
  const cases: Ev[] = [
    { ...proc, lane: 7 }, // a numeric lane: interned as its text
    { ...proc, offset: '41' }, // an offset given as a string of digits
    { ...proc, offset: 'x' },
    { ...proc, end: 4 }, // ends before it starts
    { ...proc, end: NaN },
    { ...proc, seq: null }, // a phantom
    { ...proc, outcome: 'done' },
    { ...send, seq: 0 },
    { ...send, seq: 2.5 },
    { ...send, at: Infinity },
    { ...send, type: 'ack', ok: 'yes' },
    { ...send, type: 'ack', ok: true, lane: 7 }, // a numeric ack lane: interned as its text
    { ...send, type: 'ack', ok: true, lane: { p: 0 } }, // not a lane: the ack is stored without one
    { type: 'fault', name: 'f', phase: 'start', at: 1 },
  ];
  for (const c of cases) {
    const s = new HistoryStore();
    assert.equal(s.ingestObject(c), false, JSON.stringify(c));
    assert.equal(s.counted, 0, 'nothing stored on refusal');
  }
  const r = both([send, { ...send, type: 'ack', ok: true, lane: 'p0' }, proc, ...cases]);
  assert.equal(r.fast, r.fields);
  assert.equal(r.taken, 3);
});
