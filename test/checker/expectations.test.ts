/** Expectations: both forms, defaults, fault-window scopes and the three-valued verdict. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkEvents } from '../../harness/checker/checker.ts';
import {
  DEFAULT_EXPECTED_ZERO,
  evaluateExpectations,
  parseExpectations,
  parseExpectSpec,
  withDefaults,
} from '../../harness/checker/expectations.ts';
import { faultWindows } from '../../harness/checker/faults.ts';
import { ANOMALY_TYPES } from '../../harness/checker/anomaly-types.ts';
import { InputError } from '../../harness/errors.ts';

test('string form', () => {
  assert.deepEqual(parseExpectSpec('lost=0, reorder=>0,duplicate=any,gap@stall-c1=>0,gap@outside:stall-c1=0,overlap@before:kill=0,split@after:kill=any'), [
    { type: 'lost', expect: '0', window: null, source: 'given' },
    { type: 'reorder', expect: '>0', window: null, source: 'given' },
    { type: 'duplicate', expect: 'any', window: null, source: 'given' },
    { type: 'gap', expect: '>0', window: { relation: 'during', fault: 'stall-c1' }, source: 'given' },
    { type: 'gap', expect: '0', window: { relation: 'outside', fault: 'stall-c1' }, source: 'given' },
    { type: 'overlap', expect: '0', window: { relation: 'before', fault: 'kill' }, source: 'given' },
    { type: 'split', expect: 'any', window: { relation: 'after', fault: 'kill' }, source: 'given' },
  ]);
  assert.deepEqual(parseExpectSpec(''), []);
});

test('structured form (as scenarios write it)', () => {
  assert.deepEqual(parseExpectations({ reorder: '>0', lost: 0, gap: { during: 'stall-c1', expect: '>0' }, overlap: [{ expect: 0, outside: 'x' }, 'any'] }), [
    { type: 'reorder', expect: '>0', window: null, source: 'given' },
    { type: 'lost', expect: '0', window: null, source: 'given' },
    { type: 'gap', expect: '>0', window: { relation: 'during', fault: 'stall-c1' }, source: 'given' },
    { type: 'overlap', expect: '0', window: { relation: 'outside', fault: 'x' }, source: 'given' },
    { type: 'overlap', expect: 'any', window: null, source: 'given' },
  ]);
  assert.deepEqual(parseExpectations([{ type: 'ghost', expect: '>0' }]), [{ type: 'ghost', expect: '>0', window: null, source: 'given' }]);
  assert.deepEqual(parseExpectations(undefined), []);
});

test('malformed expectations are input errors with a clear message', () => {
  const bad: [unknown, RegExp][] = [
    ['lots=0', /unknown anomaly type "lots"/],
    ['lost', /expected <type>/],
    ['lost=1', /must be 0, >0, any or a bound on the count/],
    ['lost=<x', /must be 0, >0, any or a bound on the count/],
    ['lost=<-1', /must be 0, >0, any or a bound on the count/],
    ['gap@sometime:x=0', /during, outside, before or after/],
    ['gap@=0', /missing fault name/],
    [{ gap: { during: 'x' } }, /missing "expect"/],
    [{ gap: { expect: 0, during: 'x', outside: 'y' } }, /only one of/],
    [{ gap: { expect: 0, within: 'x' } }, /unknown field "within"/],
    [{ gap: true }, /expected 0/],
    [42, /expected a string or an object/],
  ];
  for (const [input, re] of bad) {
    assert.throws(() => parseExpectations(input), (err: unknown) => err instanceof InputError && re.test((err as Error).message), String(JSON.stringify(input)));
  }
});

test('defaults: the listed types expect 0, the rest any; a given type replaces its default', () => {
  const all = withDefaults([]);
  assert.deepEqual(all.map((e) => e.type), [...ANOMALY_TYPES], 'one default per type, in order');
  for (const e of all) assert.equal(e.expect, DEFAULT_EXPECTED_ZERO.includes(e.type) ? '0' : 'any', e.type);
  assert.deepEqual([...DEFAULT_EXPECTED_ZERO].sort(), ['abandoned', 'gap', 'ghost', 'lost', 'overlap', 'phantom', 'reorder', 'split']);
  const merged = withDefaults(parseExpectSpec('reorder=>0,reorder@stall=0'));
  const reorder = merged.filter((e) => e.type === 'reorder');
  assert.deepEqual(reorder.map((e) => [e.expect, e.window?.fault ?? null, e.source]), [['>0', null, 'given'], ['0', 'stall', 'given']]);
  assert.equal(merged.find((e) => e.type === 'lost')?.source, 'default');
});

// k1: seq 2 lands at 150 (inside stall 100..200), seq 1 at 300 (reorder at 300: inside the
// window only with settle >= 100 us). k2: a reorder at 1000, after everything.
const history = [
  { type: 'fault', name: 'stall', kind: 'pause', phase: 'start', at: 100 },
  { type: 'fault', name: 'stall', kind: 'pause', phase: 'end', at: 200 },
  ...['k1', 'k2'].flatMap((key) => [1, 2].flatMap((seq) => [
    { type: 'send', key, producer: 'p', seq, at: seq },
    { type: 'ack', key, producer: 'p', seq, at: seq + 1, ok: true },
  ])),
  { type: 'process', key: 'k1', producer: 'p', seq: 2, consumer: 'c', start: 140, end: 150, outcome: 'ok' },
  { type: 'process', key: 'k1', producer: 'p', seq: 1, consumer: 'c', start: 290, end: 300, outcome: 'ok' },
  { type: 'process', key: 'k2', producer: 'p', seq: 2, consumer: 'c', start: 900, end: 910, outcome: 'ok' },
  { type: 'process', key: 'k2', producer: 'p', seq: 1, consumer: 'c', start: 990, end: 1000, outcome: 'ok' },
];

function found(settleMs: number, spec: string) {
  const r = evaluateExpectations(checkEvents(history, { settleMs }), parseExpectSpec(spec));
  return r.expectations.filter((e) => e.source === 'given').map((e) => e.found);
}

test('scopes count occurrences by their time against the fault window plus settle', () => {
  const spec = 'reorder@stall=>0,reorder@outside:stall=0,reorder@before:stall=0,reorder@after:stall=0';
  assert.deepEqual(found(0, spec), [0, 2, 0, 2]);
  assert.deepEqual(found(0.1, spec), [1, 1, 0, 1]); // settle 100 us: window until 300, inclusive
  assert.deepEqual(found(0.0999, spec), [0, 2, 0, 2]);
  assert.deepEqual(found(1, spec), [2, 0, 0, 0]);
  assert.deepEqual(found(0, 'displaced@before:stall=any'), [0]);
});

test('verdict: pass, fail, unknown; fail outranks unknown; unknown is never a pass', () => {
  const outcome = checkEvents(history, { settleMs: 1 });
  const v = (spec: string, incomplete?: string[]) => evaluateExpectations(outcome, parseExpectSpec(spec), { incomplete }).verdict;
  assert.deepEqual(v('reorder=>0'), { status: 'pass', reasons: [] });
  assert.deepEqual(v(''), { status: 'fail', reasons: ['reorder: expected 0, found 2 (2 keys)'] });
  assert.deepEqual(v('reorder@stall=0'), { status: 'fail', reasons: ['reorder during stall: expected 0, found 2 (2 keys)'] });
  assert.deepEqual(v('reorder=any,gap@nosuch=>0'), { status: 'unknown', reasons: ['gap during nosuch: fault "nosuch" never occurred in the history'] });
  assert.deepEqual(v('reorder=any', ['the drain timed out']), { status: 'unknown', reasons: ['the drain timed out'] });
  assert.deepEqual(v('', ['the drain timed out']).status, 'fail');
  const withBadLines = { ...outcome, input: { ...outcome.input, badLines: 3 } };
  assert.deepEqual(evaluateExpectations(withBadLines, parseExpectSpec('reorder=>0')).verdict, { status: 'unknown', reasons: ['3 unusable history lines skipped'] });
  const unknownScoped = evaluateExpectations(outcome, parseExpectSpec('gap@nosuch=0')).expectations.find((e) => e.window);
  assert.deepEqual(unknownScoped, { type: 'gap', expected: '0', window: { relation: 'during', fault: 'nosuch' }, found: null, keys: null, held: null, source: 'given' });
});

test('fault windows: pairing, repeats, nesting, unmatched marks, extra windows', () => {
  const m = (name: string, phase: 'start' | 'end', at: number, kind: string | null = 'k') => ({ name, phase, at, kind });
  const w = faultWindows(
    [m('a', 'end', 30), m('a', 'start', 10), m('a', 'start', 50), m('a', 'end', 60), m('b', 'end', 5), m('c', 'start', 70), m('c', 'start', 75), m('c', 'end', 80), m('d', 'start', 90), m('d', 'end', 90)],
    1000,
    [{ name: 'given', start: 1, end: 2 }],
  );
  assert.deepEqual(w, [
    { name: 'b', kind: 'k', start: null, end: 5, until: 1005 },
    { name: 'given', kind: null, start: 1, end: 2, until: 1002 },
    { name: 'a', kind: 'k', start: 10, end: 30, until: 1030 },
    { name: 'a', kind: 'k', start: 50, end: 60, until: 1060 },
    { name: 'c', kind: 'k', start: 70, end: null, until: null },
    { name: 'd', kind: 'k', start: 90, end: 90, until: 1090 },
  ]);
});

test('unseen beside lost: lost=0 with unseen in scope is unknown, never fail or pass; a given unseen expectation decides alone', () => {
  const sent = [
    { type: 'send', key: 'k', producer: 'p', seq: 1, at: 10 },
    { type: 'ack', key: 'k', producer: 'p', seq: 1, at: 11, ok: true },
    { type: 'fault', name: 'cut', kind: 'network', phase: 'start', at: 100 },
    { type: 'fault', name: 'cut', kind: 'network', phase: 'end', at: 200 },
  ];
  const held = (total: number | null) => ({ type: 'remaining', at: 5000, known: total !== null, total });
  const verdictOf = (extra: Record<string, unknown>[], spec = '') => {
    const outcome = checkEvents([...sent, ...extra], { settleMs: 0 });
    return evaluateExpectations(outcome, parseExpectSpec(spec)).verdict;
  };
  // No remaining event: the old reading (lost, fail).
  assert.equal(verdictOf([]).status, 'fail');
  // The broker holds nothing more: lost.
  const empty = verdictOf([held(0)]);
  assert.equal(empty.status, 'fail');
  assert.match(empty.reasons[0], /^lost: expected 0, found 1/);
  // It still holds messages: unseen, and the verdict is unknown with the reason.
  const some = verdictOf([held(4)]);
  assert.equal(some.status, 'unknown');
  assert.equal(some.reasons.length, 1);
  assert.match(some.reasons[0], /^lost: the drain ended with 1 acked message undelivered still on the broker \(it held 4\): unseen, not lost/);
  // It could not be asked: unseen too.
  const notAsked = verdictOf([held(null)]);
  assert.equal(notAsked.status, 'unknown');
  assert.match(notAsked.reasons[0], /could not be asked/);
  // A lost expectation scoped to a window the unseen message is outside of stays a pass.
  // (lost@cut replaces the whole-run default; the unseen message was sent before the cut.)
  assert.equal(verdictOf([held(4)], 'lost@cut=0').status, 'pass');
  assert.equal(verdictOf([held(4)], 'lost@before:cut=0').status, 'unknown');
  // A scenario's own unseen expectation decides alone.
  assert.equal(verdictOf([held(4)], 'unseen=>0').status, 'pass');
  assert.equal(verdictOf([held(4)], 'unseen=0').status, 'fail');
  assert.equal(verdictOf([held(0)], 'unseen=>0').status, 'fail'); // lost, and no unseen
});

test('an expectation of 0 that holds only because its anomalies were uncertain is unknown, in and out of a window; a real one still fails', () => {
  // c2 ran on host b, whose clock is known to ±5 µs: seq 1 landed 2 µs after seq 2 (true
  // order unknown), then, after a fault began, seq 3 landed 3 µs after seq 4.
  const events = [
    ...[1, 2, 3, 4].map((seq) => ({ type: 'send', key: 'k', producer: 'p', seq, at: 0 })),
    { type: 'process', key: 'k', producer: 'p', seq: 2, consumer: 'c1', received: 0, start: 0, end: 10, outcome: 'ok' },
    { type: 'process', key: 'k', producer: 'p', seq: 1, consumer: 'c2', received: 11, start: 11, end: 12, outcome: 'ok' },
    { type: 'process', key: 'k', producer: 'p', seq: 4, consumer: 'c1', received: 100, start: 100, end: 110, outcome: 'ok' },
    { type: 'process', key: 'k', producer: 'p', seq: 3, consumer: 'c2', received: 112, start: 112, end: 113, outcome: 'ok' },
    { type: 'clock', host: 'b', at: 0, offset: 0, uncertainty: 5, workers: ['c2'] },
    { type: 'fault', name: 'stall', kind: 'pause', phase: 'start', at: 50 },
    { type: 'fault', name: 'stall', kind: 'pause', phase: 'end', at: 60 },
  ];
  const outcome = checkEvents(events, { settleMs: 0.1 });
  assert.equal(outcome.anomalies.reorder.count, 0);
  assert.equal(outcome.anomalies.reorder.uncertain?.count, 2);
  assert.deepEqual(outcome.anomalies.reorder.uncertain?.examples.map((e) => [e.seq, e.margin, e.uncertainty]), [[1, 2, 5], [3, 3, 5]]);
  const judged = (spec: string) => evaluateExpectations(outcome, parseExpectSpec(spec)).verdict;
  const whole = judged('');
  assert.equal(whole.status, 'unknown');
  assert.deepEqual(whole.reasons, ['reorder: expected 0, found 0 certain and 2 uncertain (1 key): times on different hosts closer than their clocks are known']);
  assert.equal(judged('reorder@before:stall=0').status, 'unknown', 'the first is before the fault');
  assert.match(judged('reorder@before:stall=0').reasons[0]!, /reorder before stall: .* and 1 uncertain/);
  assert.equal(judged('reorder=any').status, 'pass', 'an expectation that allows them holds');
  assert.equal(judged('reorder=>0').status, 'fail', 'uncertain ones are not counted as the type');
  // The same history with host b's clock known exactly: two certain reorders, a failure.
  const exact = checkEvents(events.map((e) => (e.type === 'clock' ? { ...e, uncertainty: 0 } : e)));
  assert.equal(exact.anomalies.reorder.count, 2);
  assert.equal(evaluateExpectations(exact, []).verdict.status, 'fail');
});
