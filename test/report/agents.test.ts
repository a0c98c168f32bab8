/**
 * The report's agents section (harness/report/sections/agents.ts) from a result's
 * `harness.agents`: one row per agent with its host, roles, workers, acked count and rate,
 * handled count and CPU; nothing (and no link) for a run without agents.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentsSection } from '../../harness/report/sections/agents.ts';
import { renderReport } from '../../harness/report/render.ts';
import type { ReportResult } from '../../harness/report/view.ts';

const agents = [
  { agent: '10.0.0.2:7411', host: 'load-a', cores: 4, roles: ['producers'], workers: ['p-producer-1'], acked: 12500, applied: 0, ackedPerSecond: 2500, cpuMeanPercent: 37.4 },
  { agent: '10.0.0.3:7411', host: 'load-b', cores: 2, roles: ['consumers'], workers: ['c1', 'c2'], acked: 0, applied: 12480, ackedPerSecond: 0, cpuMeanPercent: 61.8 },
];
const result = (a?: unknown): ReportResult =>
  ({ runId: 'x-20261206-011500-7bed', verdict: { status: 'pass' }, harness: { incomplete: [], ...(a ? { agents: a } : {}) } }) as unknown as ReportResult;

test('the agents section has one row per agent: host, roles, workers, acked and its rate, handled, CPU', () => {
  const html = agentsSection(result(agents));
  assert.match(html, /<tr data-agent="10\.0\.0\.2:7411" data-acked="12500" data-applied="0"><td>10\.0\.0\.2:7411<\/td><td>load-a<\/td><td class="num">4<\/td><td>producers<\/td>\s*<td>p-producer-1<\/td><td class="num">12,500<\/td><td class="num">2,500 msg\/s<\/td><td class="num">0<\/td><td class="num">37%<\/td><\/tr>/);
  assert.match(html, /<td>c1, c2<\/td><td class="num">0<\/td><td class="num">0 msg\/s<\/td><td class="num">12,480<\/td><td class="num">62%<\/td>/);
  const page = renderReport(result(agents));
  assert.match(page, /href="#agents"/);
  assert.match(page, /<section id="agents">/);
});

test('a run without agents has no agents section and no link to one', () => {
  assert.equal(agentsSection(result()), '');
  assert.doesNotMatch(renderReport(result()), /id="agents"|href="#agents"/);
});
