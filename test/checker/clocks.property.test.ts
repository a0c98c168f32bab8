/**
 * Property: histories with known clock offsets. A history is drawn on one clock (the truth);
 * consumer c2's times are then stamped on host b's clock, off by a known offset, and the
 * history says so in clock events with an uncertainty. The checker, mapping c2's times back,
 * finds what it finds on the truth: every type the same, except that reorders, regressions
 * and overlaps whose times are closer than the uncertainty move to the type's `uncertain`
 * count, and never more than that.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkEvents } from '../../harness/checker/checker.ts';
import { ANOMALY_TYPES } from '../../harness/checker/types.ts';
import { historyArb, type Ev } from './helpers.ts';

const QUALIFIED = new Set(['reorder', 'regression', 'overlap']);

/** The same history with c2's times stamped `offset` µs off (a drift-free host b), and b's clock measured. */
function onHostB(events: Ev[], offset: number, uncertainty: number): Ev[] {
  const shifted = events.map((e) => {
    if (e.type !== 'process' || e.consumer !== 'c2') return e;
    const out: Ev = { ...e, start: (e.start as number) + offset, received: (e.received as number) + offset };
    if (typeof e.end === 'number') out.end = e.end + offset;
    return out;
  });
  return [
    ...shifted,
    { type: 'clock', host: 'b', at: -100, offset, uncertainty, workers: [] },
    { type: 'clock', host: 'b', at: 100, offset, uncertainty, workers: ['c2'] },
  ];
}

test('a host whose clock is off by a known offset: the corrected check equals the truth, but for orders within the uncertainty', () => {
  fc.assert(
    fc.property(historyArb({ maxEvents: 40 }), fc.integer({ min: -50_000, max: 50_000 }), fc.constantFrom(0, 1, 2, 5), (events, offset, uncertainty) => {
      const truth = checkEvents(events).anomalies;
      const got = checkEvents(onHostB(events, offset, uncertainty)).anomalies;
      for (const t of ANOMALY_TYPES) {
        const u = got[t].uncertain?.count ?? 0;
        if (!QUALIFIED.has(t) || uncertainty === 0) {
          assert.equal(u, 0, `${t}: nothing uncertain`);
          assert.equal(got[t].count, truth[t].count, `${t}: as on one clock`);
        } else {
          assert.equal(got[t].count + u, truth[t].count, `${t}: certain and uncertain together are the truth's`);
          for (const ex of got[t].uncertain?.examples ?? []) assert.ok((ex.margin as number) <= (ex.uncertainty as number), `${t}: ${ex.note}`);
        }
      }
    }),
    { numRuns: 400 },
  );
});

test('an offset far beyond the history\'s times, left uncorrected, changes what is found; corrected, it does not', () => {
  // c1 (the runner's host) applies seq 2, then c2 (host b, 50 ms ahead) applies seq 3: in order.
  const truth: Ev[] = [
    { type: 'send', key: 'k', producer: 'p', seq: 2, at: 0 },
    { type: 'send', key: 'k', producer: 'p', seq: 3, at: 1 },
    { type: 'process', key: 'k', producer: 'p', seq: 2, consumer: 'c1', received: 10, start: 10, end: 20, outcome: 'ok' },
    { type: 'process', key: 'k', producer: 'p', seq: 3, consumer: 'c2', received: 25, start: 25, end: 30, outcome: 'ok' },
  ];
  const skewed = onHostB(truth, -50_000, 200);
  assert.equal(checkEvents(skewed, { correctClocks: false }).anomalies.reorder.count, 1, 'uncorrected: seq 2 seems to land after seq 3');
  const corrected = checkEvents(skewed).anomalies.reorder;
  assert.equal(corrected.count, 0);
  assert.equal(corrected.uncertain, undefined, 'in order on the runner\'s clock, by more than the uncertainty: nothing to qualify');
});
