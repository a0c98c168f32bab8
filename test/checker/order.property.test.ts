/**
 * Property: the result does not depend on line order, on how the input is chunked (as text
 * or as bytes, cutting through multi-byte characters), or on how each line is spelled.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Checker, checkEvents } from '../../harness/checker/checker.ts';
import { historyArb, type Ev } from './helpers.ts';

/** Keys with multi-byte UTF-8 (and a surrogate pair) so byte chunks can split a character. */
function widen(e: Ev): Ev {
  return e.key === 'b' ? { ...e, key: 'b—ключ🙂' } : e;
}

/** Another valid spelling of the same event: reordered fields, spaces, escapes, CRLF. */
function respell(e: Ev, variant: number): string {
  const entries = Object.entries(e);
  if (variant === 1) entries.reverse();
  if (variant === 2) return JSON.stringify(Object.fromEntries(entries), null, 1).replace(/\n/g, ' ');
  if (variant === 3) return JSON.stringify(e).replace(/"type"/, '"\\u0074ype"') + '\r';
  if (variant === 4) return JSON.stringify({ ...e, extra: { nested: [1, { deep: 'x' }] } });
  return JSON.stringify(Object.fromEntries(entries));
}

const faults: Ev[] = [
  { type: 'fault', name: 'stall', kind: 'pause', phase: 'start', at: 5 },
  { type: 'fault', name: 'stall', kind: 'pause', phase: 'end', at: 9 },
  { type: 'fault', name: 'kill', kind: 'kill', phase: 'start', at: 20 },
];

function fingerprint(checker: Checker): string {
  const r = checker.finish({ settleMs: 0.002 });
  return JSON.stringify([r.anomalies, r.occurrences.list(), r.uncertain.list(), r.clocks, r.faults, r.remaining, r.input.events, r.input.messages, r.input.keys]);
}

/** Histories from `arb`, with faults, a line order, a spelling per line and chunk cuts. */
const inputs = (arb: fc.Arbitrary<Ev[]>) => arb.chain((events) => {
  const all = [...events, ...faults].map(widen);
  return fc.record({
    events: fc.constant(all),
    order: fc.array(fc.nat(), { minLength: all.length, maxLength: all.length }),
    spelling: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: all.length, maxLength: all.length }),
    cuts: fc.array(fc.nat(), { maxLength: 12 }),
  });
});

/** Checks that one history gives the same result however its lines are ordered, spelled and cut. */
function sameWhateverTheInput({ events, order, spelling, cuts }: { events: Ev[]; order: number[]; spelling: number[]; cuts: number[] }): void {
  const reference = new Checker();
  for (const e of events) reference.add(e);
  const want = fingerprint(reference);

  const permuted = events.map((e, i) => ({ e, i, k: order[i] })).sort((a, b) => a.k - b.k || a.i - b.i);
  const text = permuted.map(({ e, i }) => respell(e, spelling[i])).join('\n');
  const bytes = Buffer.from(text, 'utf8');

  const byText = new Checker();
  const textCuts = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const c of [...textCuts, text.length]) {
    byText.write(text.slice(from, c));
    from = c;
  }
  byText.end();
  assert.equal(fingerprint(byText), want, 'text chunks');

  const byBytes = new Checker();
  const byteCuts = [...new Set(cuts.map((c) => (c * 7) % (bytes.length + 1)))].sort((a, b) => a - b);
  from = 0;
  for (const c of [...byteCuts, bytes.length]) {
    byBytes.write(bytes.subarray(from, c));
    from = c;
  }
  byBytes.end();
  assert.equal(fingerprint(byBytes), want, 'byte chunks');

  const byLines = new Checker();
  for (const line of text.split('\n')) byLines.addLine(line);
  assert.equal(fingerprint(byLines), want, 'lines');
}

test('shuffled, respelled and chunked input gives byte-identical results', () => {
  fc.assert(fc.property(inputs(historyArb({ maxEvents: 50 })), sameWhateverTheInput), { numRuns: 300 });
});

test('the same where ack lanes and remaining events decide (ties of remaining events included)', () => {
  fc.assert(fc.property(inputs(historyArb({ maxEvents: 50, undelivered: true })), sameWhateverTheInput), { numRuns: 200 });
});

test('the same history checked twice gives the same JSON', () => {
  fc.assert(
    fc.property(historyArb(), (events) => {
      assert.equal(JSON.stringify(checkEvents(events).anomalies), JSON.stringify(checkEvents([...events].reverse()).anomalies));
    }),
    { numRuns: 200 },
  );
});

test('split: applies equal in apply order give the same example whatever the line order', () => {
  // Two applies of one key from lane l2 that differ only in producer: found by the property above.
  const events: Ev[] = [
    { type: 'ack', key: 'a', producer: 'p2', seq: 3, at: 0, ok: true },
    { type: 'process', key: 'a', producer: 'p1', seq: 4, start: 24, consumer: 'c2', lane: 'l2', offset: 1, end: 26, outcome: 'ok' },
    { type: 'process', key: 'a', producer: 'p2', seq: 4, start: 24, consumer: 'c2', lane: 'l2', offset: 1, end: 26, outcome: 'ok' },
    { type: 'send', key: 'a', producer: 'p1', seq: 4, at: 0 },
    { type: 'send', key: 'a', producer: 'p2', seq: 4, at: 0 },
    { type: 'process', key: 'a', producer: 'p2', seq: 3, start: 0, consumer: 'c1', lane: 'l1', offset: 1, end: 0, outcome: 'ok' },
  ];
  const forward = checkEvents(events).anomalies.split;
  assert.equal(JSON.stringify(forward), JSON.stringify(checkEvents([...events].reverse()).anomalies.split));
  assert.equal((forward.examples[0].second as { producer: string }).producer, 'p1');
});

test('an uncertain overlap with two running attempts equally long beside it: the same example whatever the line order', () => {
  // Found by the property below (seed 923146245): c2's attempt, mapped 5 µs back, runs 3..4 like
  // the unnamed one; their margins tie, and the example took whichever came first.
  const events: Ev[] = [
    { type: 'send', key: 'b', producer: 'p1', seq: 2, at: 0 },
    { type: 'process', key: 'b', producer: 'p1', seq: 2, start: 3, consumer: 'c1', lane: 'l1', offset: 1, end: 3, outcome: 'ok', received: 3 },
    { type: 'process', key: 'b', producer: 'p1', seq: 2, start: 3, lane: 'l1', offset: 1, end: 4, outcome: 'ok', received: 3 },
    { type: 'process', key: 'b', producer: 'p1', seq: 2, start: 8, consumer: 'c2', lane: 'l1', offset: 1, end: 9, outcome: 'ok', received: 8 },
    { type: 'clock', host: 'a', at: 0, offset: 0, uncertainty: 0, workers: ['c1'] },
    { type: 'clock', host: 'a', at: -100, offset: 0, uncertainty: 1, workers: [] },
    { type: 'clock', host: 'b', at: 100, offset: 5, uncertainty: 1, workers: ['c2'] },
  ];
  const moved = [...events.slice(0, 2), ...events.slice(3), events[2]!];
  const overlap = (list: Ev[]) => JSON.stringify(checkEvents(list).anomalies.overlap);
  assert.equal(overlap(moved), overlap(events));
  assert.match(overlap(events), /"uncertainty":1/);
});

test('the same where other hosts\' clock events map consumers\' times (the clock lines anywhere among the others)', () => {
  fc.assert(fc.property(inputs(historyArb({ maxEvents: 40, clocks: true })), sameWhateverTheInput), { numRuns: 200 });
});
