/**
 * The report's costs section (harness/report/sections/costs.ts) from a result's
 * `finalState.<live>.costs`: the resequencer's held messages, peaks, memory, added latency,
 * alerts, fetches, renewals, its held count over time and when the in-flight cap stalled a
 * consumer; notification's reads per event and owner read latency; nothing without costs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { costsSection } from '../../harness/report/sections/costs.ts';
import type { ReportResult } from '../../harness/report/view.ts';

const latency = (p50: number, max: number) => ({ count: 40, min: 10, mean: p50, p50, p90: max, p99: max, p999: max, p9999: max, max, unit: 'us' as const });
const result = (finalState: Record<string, unknown>): ReportResult => ({ runId: 'r', verdict: { status: 'pass', reasons: [] }, workload: { finalState } }) as unknown as ReportResult;
const value = (html: string, cost: string) => html.match(new RegExp(`data-cost="${cost}" data-value="([^"]*)"`))?.[1];

test('the resequencer: held, peaks, memory, alerts, fetches, renewals, added latency, growth and cap stalls', () => {
  const html = costsSection(
    result({
      resequencer: {
        strategy: 'resequencer',
        costs: {
          consumers: 2,
          counts: { held: 48, released: 46, heldAtEnd: 2, alerts: 4, fetches: 4, renewals: 12, renewalFailures: 1, capStalls: 3, capStalledMs: 900, ownerReads: 4 },
          peaks: { peakHeld: 20, peakHeldPerKey: 3, peakRssBytes: 117 * 1048576 },
          latency: { addedLatency: latency(1_015_000, 2_738_000), ownerRead: latency(7_300, 46_000) },
          derived: { peakHeldTotal: 36, heldPerSecond: [0, 2, 3, 6], capStalls: [{ consumer: 'c1', atMs: 1302, ms: 421 }, { consumer: 'c2', atMs: 5000, ms: null }] },
        },
      },
      naive: { strategy: 'naive' },
    }),
  );
  assert.match(html, /<section id="costs">/);
  for (const [k, v] of Object.entries({ held: '48', heldAtEnd: '2', alerts: '4', fetches: '4', renewals: '12', renewalFailures: '1', peakHeldPerKey: '3', peakHeld: '20', peakHeldTotal: '36', capStalls: '3' })) assert.equal(value(html, k), v, k);
  assert.match(html, /117 MiB/);
  assert.match(html, /data-costs-latency="resequencer"/);
  assert.match(html, /added latency of released messages[^<]*<\/td><td class="num">40<\/td><td class="num" data-metric="addedLatency" data-stat="p50"[^>]*>1\.02 s/);
  assert.match(html, /data-cost="heldPerSecond"[^>]*>[^<]*0, 2, 3, 6/);
  assert.match(html, /data-consumer="c1" data-at-ms="1302" data-ms="421"/);
  assert.match(html, /until the consumer stopped/);
  assert.doesNotMatch(html, /<h3>naive/, 'a strategy without costs has no entry');
});

test('notification: reads per event and the owner read latency; held messages that never filled the cap say so', () => {
  const html = costsSection(result({ notification: { costs: { consumers: 3, counts: { events: 400, reads: 500, retries: 69, ownerReads: 500, ownerReadErrors: 637 }, peaks: { peakRssBytes: 1 }, latency: { ownerRead: latency(7_300, 46_000) } } } }));
  assert.equal(value(html, 'readsPerEvent'), '1.25');
  assert.match(html, /owner read latency/);
  assert.doesNotMatch(html, /data-cap-stalls/);
  const held = costsSection(result({ resequencer: { costs: { consumers: 1, counts: { held: 5 }, peaks: {}, latency: {} } } }));
  assert.match(held, /never filled a consumer's in-flight cap/);
});

test('no costs in the result: no section', () => {
  assert.equal(costsSection(result({ naive: { strategy: 'naive' } })), '');
  assert.equal(costsSection(result({})), '');
});
