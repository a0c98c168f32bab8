/** Property: on random histories the checker agrees with the brute-force oracle on everything. */
import { test } from 'node:test';
import fc from 'fast-check';
import { checkEvents, checkText } from '../../harness/checker/checker.ts';
import { assertMatchesOracle, historyArb, toJsonl } from './helpers.ts';

test('checker equals the oracle on random histories (objects)', () => {
  fc.assert(
    fc.property(historyArb(), (events) => {
      assertMatchesOracle(events, checkEvents(events));
    }),
    { numRuns: 600 },
  );
});

test('checker equals the oracle on random histories (JSONL, two examples kept)', () => {
  fc.assert(
    fc.property(historyArb({ maxEvents: 60 }), (events) => {
      assertMatchesOracle(events, checkText(toJsonl(events), { maxExamples: 2 }), 2);
    }),
    { numRuns: 300 },
  );
});

test('checker equals the oracle where most acked messages are undelivered (ack lanes and remaining events decide)', () => {
  fc.assert(
    fc.property(historyArb({ undelivered: true }), (events) => {
      assertMatchesOracle(events, checkEvents(events));
      assertMatchesOracle(events, checkText(toJsonl(events)));
    }),
    { numRuns: 400 },
  );
});
