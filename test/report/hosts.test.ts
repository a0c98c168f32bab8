/**
 * A run across hosts in its report: the hosts section (harness/report/sections/hosts.ts) shows
 * each agent's share and each host's clock; the anomaly table gains an uncertain column only
 * when some type has uncertain anomalies. A run on one host shows neither.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostsSection } from '../../harness/report/sections/hosts.ts';
import { verdictSection } from '../../harness/report/sections/verdict.ts';
import { renderReport } from '../../harness/report/render.ts';
import type { ReportResult } from '../../harness/report/view.ts';

const oneHost: ReportResult = { runId: 'x-20261206-010000-abcd', verdict: { status: 'pass' } as ReportResult['verdict'] };
const agents = [
  { agent: '10.0.0.2:7411', host: 'agent-a', cores: 2, roles: ['producers'], workers: ['p1'], acked: 1200, applied: 0, ackedPerSecond: 300, cpuMeanPercent: 12.345 },
  { agent: '10.0.0.3:7411', host: 'agent-b', cores: 2, roles: ['consumers'], workers: ['c1', 'c2'], acked: 0, applied: 1200, ackedPerSecond: 0, cpuMeanPercent: 20 },
];
const clocks = [{ host: 'agent-b', workers: ['c1', 'c2'], measurements: 4, offsetUs: { first: -50_012, last: -49_990 }, uncertaintyUs: 140, driftPpm: 0.4, corrected: true }];
const example = { key: 'k1', producer: 'p1', seq: 7, at: 1, note: 'applied before seq 6', margin: 60, uncertainty: 140 };
const acrossHosts: ReportResult = {
  ...oneHost,
  harness: { agents } as ReportResult['harness'],
  check: { clocks },
  anomalies: {
    reorder: { count: 3, keys: 2, examples: [], uncertain: { count: 2, keys: 1, examples: [example] } },
    lost: { count: 0, keys: 0, examples: [] },
  } as ReportResult['anomalies'],
};

test('the hosts section shows each agent\'s share and each host\'s clock, and is left out for one host', () => {
  const html = hostsSection(acrossHosts);
  assert.match(html, /<tr data-agent="10\.0\.0\.2:7411" data-acked="1200" data-applied="0" data-ackedPerSecond="300" data-cpu="12\.345"><td>10\.0\.0\.2:7411<\/td><td>agent-a<\/td>/);
  assert.match(html, /<td>c1 c2<\/td>\n<td class="num">0<\/td><td class="num">1,200<\/td><td class="num">0 msg\/s<\/td><td class="num">20\.0%<\/td>/);
  assert.match(html, /data-host="agent-b" data-offsetUs="-49990" data-uncertaintyUs="140" data-driftPpm="0\.4" data-corrected="true"/);
  assert.match(html, /<td class="num">-50\.012 ms<\/td><td class="num">-49\.99 ms<\/td><td class="num">±0\.14 ms<\/td><td class="num">0\.4 ppm<\/td><td>yes<\/td>/);
  assert.equal(hostsSection(oneHost), '');
  assert.doesNotMatch(renderReport(oneHost), /href="#hosts"/);
  assert.match(renderReport(acrossHosts), /href="#hosts"/);
});

test('uncertain anomalies get a column of their own, with the first example\'s margin; without any, no column', () => {
  const html = verdictSection(acrossHosts);
  assert.match(html, /<th>uncertain<\/th>/);
  assert.match(html, /data-type="reorder" data-count="3" data-keys="2" data-uncertain="2"/);
  assert.match(html, /<td class="num uncertain" title="e\.g\. 60 µs apart, uncertainty 140 µs">2 \(1 keys\)<\/td>/);
  assert.match(html, /data-type="lost"[^>]*>\n  <td>lost<\/td><td class="num">0<\/td><td class="num">0<\/td><td class="num uncertain">—<\/td>/);
  assert.doesNotMatch(verdictSection({ ...acrossHosts, anomalies: { lost: { count: 0, keys: 0, examples: [] } } as ReportResult['anomalies'] }), /uncertain/);
});
