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

// An order service's send events carry the version it numbered and the event's id
// beside seq (its commit index). The checker judges order by seq alone, so the new fields,
// whatever their values (duplicate versions included), change nothing it finds.
test('send events with version and event id (order-service runs): the checker still equals the oracle, and finds the same', () => {
  fc.assert(
    fc.property(historyArb({ maxEvents: 60 }), fc.infiniteStream(fc.integer({ min: 1, max: 3 })), (events, versions) => {
      const withVersions = events.map((e, i) => (e.type === 'send' ? { ...e, version: versions.next().value, event: i + 1 } : e));
      const plain = checkEvents(events);
      const numbered = checkEvents(withVersions);
      assertMatchesOracle(withVersions, numbered);
      assertMatchesOracle(withVersions, checkText(toJsonl(withVersions)));
      for (const [type, entry] of Object.entries(plain.anomalies)) {
        if (typeof entry === 'object' && entry && 'count' in entry) {
          const other = (numbered.anomalies as Record<string, { count: number }>)[type]!;
          if (other.count !== (entry as { count: number }).count) throw new Error(`${type}: ${(entry as { count: number }).count} without versions, ${other.count} with`);
        }
      }
    }),
    { numRuns: 200 },
  );
});

// Histories from three clocks: the runner's, and hosts "a" and "b" with measured offsets,
// drifts and uncertainties. The checker maps each host's times and applies the uncertain rule
// exactly as the oracle does; and with the correction turned off, both read times as stamped.
test('histories from several hosts: the checker equals the oracle, with and without the clock correction', () => {
  fc.assert(
    fc.property(historyArb({ clocks: true }), (events) => {
      assertMatchesOracle(events, checkEvents(events));
      assertMatchesOracle(events, checkText(toJsonl(events), { maxExamples: 2 }), 2);
      assertMatchesOracle(events, checkEvents(events, { correctClocks: false }), 5, { correctClocks: false });
    }),
    { numRuns: 500 },
  );
});
