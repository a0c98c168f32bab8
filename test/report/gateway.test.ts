/**
 * The report's order-service section (harness/report/sections/gateway.ts) from a result's
 * `gateway`: the service's shape, the request rate reached, convoy's HTTP latency per role next
 * to autocannon's with its limits, duplicate versions and the store at the end. Absent, with
 * its nav link, from runs without an order service.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gatewaySection } from '../../harness/report/sections/gateway.ts';
import { renderReport } from '../../harness/report/render.ts';
import type { ReportResult } from '../../harness/report/view.ts';

const latency = { count: 2400, min: 60, mean: 1087, p50: 304, p90: 2713, p99: 9199, p999: 35007, p9999: 56991, max: 56991, unit: 'us' };
const gateway = {
  mode: 'outbox', instances: 2, connections: 16, relays: 3,
  duplicateVersions: { count: 3, keys: 2, events: 2400, examples: [{ key: 'order-7', version: 12, events: [101, 104] }] },
  requests: { asked: 200, achieved: 187, sent: 2400, ok: 2398, failed: 2 },
  http: { instance: { latency, byStatus: { 202: 2398, 503: 2 }, processes: ['i1', 'i2'] } },
  autocannon: { summary: { latencyMs: { mean: 11, p50: 7, p90: 26, p99: 60, p99_9: 99, max: 120 }, errors: 0, timeouts: 0, non2xx: 2 }, limits: ['closed loop per connection'] },
  store: { orders: 20, events: 2398 },
};
const result = (g?: unknown): ReportResult => ({ runId: 'x-20261202-101445-7bed', verdict: { status: 'pass' } as ReportResult['verdict'], ...(g ? { gateway: g } : {}) }) as ReportResult;

test("the order-service section shows the service's shape, the rate reached, duplicates and the store", () => {
  const html = gatewaySection(result(gateway));
  assert.match(html, /data-gateway="mode" data-value="outbox">outbox/);
  assert.match(html, /data-gateway="instances" data-value="2">2, 16 client connections, 3 outbox relays/);
  assert.match(html, /data-gateway="achieved" data-value="187">187 of 200 requests\/s asked/);
  assert.match(html, /data-gateway="failed" data-value="2">2,400 sent, 2,398 answered ok, 2 failed/);
  assert.match(html, /data-gateway="duplicateVersions" data-value="3">3 events on 2 orders, of 2,400 distinct events; e\.g\. order-7 v12 \(events 101, 104\)/);
  assert.match(html, /data-gateway="storeEvents" data-value="2398">20 orders, 2,398 events/);
});

test("convoy's HTTP latency per role sits next to autocannon's, whose milliseconds are shown as durations, with its limits", () => {
  const html = gatewaySection(result(gateway));
  assert.match(html, /<tr data-role="instance"><td>convoy, instance \(i1, i2\)<\/td><td class="num">2,400<\/td><td class="num" data-role="instance" data-stat="p50" data-us="304">304 µs<\/td>/);
  assert.match(html, /data-role="instance" data-stat="p99" data-us="9199">9\.20 ms</);
  assert.match(html, /202: 2,398, 503: 2/);
  assert.match(html, /data-role="autocannon" data-stat="p99" data-us="60000">60\.0 ms</);
  assert.match(html, /errors, timeouts, non-2xx: 2/);
  assert.match(html, /<summary>autocannon's limits<\/summary><ul><li>closed loop per connection<\/li>/);
});

test('a run without an order service has no such section and no link to it; one with it has both', () => {
  assert.equal(gatewaySection(result()), '');
  const without = renderReport(result());
  assert.doesNotMatch(without, /id="gateway"|href="#gateway"/);
  const page = renderReport(result(gateway));
  assert.match(page, /href="#gateway"/);
  assert.match(page, /<section id="gateway">/);
});
