import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InputError } from '../../harness/errors.ts';
import { evaluateThreshold, parseThreshold, THRESHOLD_NAMES, type ThresholdFigures } from '../../harness/checker/thresholds.ts';
import { countHolds, parseExpectations } from '../../harness/checker/expectations.ts';
import { RateLedger } from '../../harness/metrics/rates.ts';

const summary = (p99Us: number) => ({ count: 10, p50: 1000, p90: 1000, p99: p99Us, p999: p99Us, p9999: p99Us, max: p99Us, mean: 1000 });
const rates = (processed: number, target: number) => ({ seconds: 10, target, sent: target, processed });
const figures: ThresholdFigures = {
  latency: {
    whole: { endToEnd: summary(900_000) },
    outsideFaults: { endToEnd: summary(30_000) },
    phases: [{ fault: 'stall', during: { endToEnd: summary(950_000) }, outside: { endToEnd: summary(30_000) } }],
  },
  rates: { whole: rates(90, 100), outsideFaults: rates(99, 100), faults: [{ fault: 'stall', before: rates(100, 100), during: rates(50, 100), after: rates(100, 100), outside: rates(100, 100) }] },
};

test('a latency threshold judges outside fault windows by default, or the scope it names', () => {
  const judge = (value: unknown) => evaluateThreshold(parseThreshold('expect.x', 'latency.e2e.p99', value), figures);
  assert.deepEqual([judge('<200ms').found, judge('<200ms').held, judge('<200ms').scope], [30, true, 'outside faults']);
  assert.deepEqual([judge({ expect: '<200ms', whole: true }).found, judge({ expect: '<200ms', whole: true }).held], [900, false]);
  const during = judge({ expect: '>=0.5s', during: 'stall' });
  assert.deepEqual([during.found, during.held, during.scope, during.window], [950, true, 'during stall', { relation: 'during', fault: 'stall' }]);
  assert.equal(judge('<=30').held, true, 'a bare number is milliseconds');
  assert.equal(judge('<30').held, false);
  // No sample in its scope: undecided, never a pass.
  assert.equal(judge({ expect: '<1s', before: 'stall' }).held, null);
});

test('throughput: messages per second, or a share of the schedule in the same scope', () => {
  const judge = (name: string, value: unknown) => evaluateThreshold(parseThreshold('expect.x', name, value), figures);
  assert.deepEqual([judge('throughput', '>=0.95 of target').found, judge('throughput', '>=0.95 of target').held], [0.99, true]);
  assert.equal(judge('throughput', { expect: '>=0.95 of target', during: 'stall' }).held, false);
  assert.equal(judge('throughput', { expect: '>=95/s', whole: true }).held, false);
  assert.equal(judge('throughput.sent', '>=100').held, true);
});

test('a threshold written wrong is an input error that says how to write it', () => {
  const bad: [string, unknown, RegExp][] = [
    ['latency.e2e.p99', '200ms', /has no comparison; write "<200ms"/],
    ['latency.e2e.p99', '<fast', /expected a duration after </],
    ['throughput', '>=most', /messages per second .* or a share of the target rate/],
    ['latency.e2e.p99', { expect: '<1s', whole: false }, /whole: expected true/],
    ['latency.e2e.p99', { expect: '<1s', whole: true, during: 'x' }, /give one scope/],
    ['latency.e2e.p99', { within: 'x', expect: '<1s' }, /unknown field "within"/],
    ['latency.e2e.p99', { during: 'x' }, /missing "expect"/],
  ];
  for (const [name, value, re] of bad) assert.throws(() => parseThreshold('expect.t', name, value), (e: unknown) => e instanceof InputError && re.test((e as Error).message), JSON.stringify(value));
  assert.ok(THRESHOLD_NAMES.includes('latency.keyWait.p99') && THRESHOLD_NAMES.includes('throughput'));
});

test('anomaly counts take bounds: <N, <=N, >=N', () => {
  const [e] = parseExpectations({ reorder: '<5' });
  assert.equal(e.expect, '<5');
  assert.deepEqual([countHolds('<5', 4), countHolds('<5', 5), countHolds('<=3', 3), countHolds('>=2', 1), countHolds('0', 0), countHolds('>0', 0)], [true, false, true, false, true, false]);
  assert.equal(parseExpectations('reorder=<=3')[0].expect, '<=3');
});

test('rates by scope: the fault window and its settle time are cut out of "outside faults"', () => {
  // 1 s measured, due every 10 ms; handled every 10 ms except inside the fault (200..400 ms + 100 ms settle).
  const ledger = new RateLedger(0, [{ name: 'f', startUs: 200_000, endUs: 400_000 }], 100_000);
  for (let t = 0; t <= 1_000_000; t += 10_000) {
    ledger.due(t);
    ledger.send(t);
    if (t < 200_000 || t >= 500_000) ledger.handled(t);
  }
  const r = ledger.section();
  assert.equal(r.outsideFaults.seconds, 0.7);
  assert.equal(r.faults[0].during.seconds, 0.3);
  assert.equal(r.faults[0].during.processed, 0);
  assert.ok(Math.abs(r.outsideFaults.processed - r.outsideFaults.target) < 2, JSON.stringify(r.outsideFaults));
  assert.ok(r.whole.processed < r.whole.target * 0.75, JSON.stringify(r.whole));
});
