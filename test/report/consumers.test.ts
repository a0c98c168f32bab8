/**
 * The report's consumers section (harness/report/sections/consumers.ts) from a result's
 * `consumers`: the mode's and strategy's costs, the busiest key's backlog and oldest
 * unprocessed age, and the head-of-line victims only in runs with poison messages.
 * End to end on real runs: test/consumer/hotkey-defences.test.ts reads the written reports.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { consumersSection } from '../../harness/report/sections/consumers.ts';
import { renderReport } from '../../harness/report/render.ts';
import type { ReportResult } from '../../harness/report/view.ts';

const consumers = {
  mode: 'conflate',
  strategy: 'versioned',
  costs: { handled: 875, conflated: 351, applied: 524, errors: 0, storeTransactions: 524, messagesPerTransaction: 1, transactionsPerMessage: 0.599, handlerMsPerMessage: 25.296, perSecond: 47 },
  hotKey: { key: 'k0', offeredPerSecond: 97.9, handledPerSecond: 27.2, backlogGrowthPerSecond: 70.8, backlogMax: 521, backlogAtEndOfSending: 501, oldestUnprocessedMsMax: 12258, oldestUnprocessedMsAtEndOfSending: 6129 },
};
const result = (c?: unknown): ReportResult => ({ runId: 'x-20261202-101445-7bed', verdict: { status: 'pass' } as ReportResult['verdict'], ...(c ? { consumers: c } : {}) });

test('the consumers section shows the mode, strategy and costs, and the busiest key\'s backlog and oldest unprocessed age', () => {
  const html = consumersSection(result(consumers));
  assert.match(html, /<tr data-mode="conflate" data-strategy="versioned"><td>conflate<\/td><td>versioned<\/td><td class="num">875<\/td><td class="num">351<\/td><td class="num">524<\/td>/);
  assert.match(html, /<td class="num">25\.3<\/td><td class="num">47 msg\/s<\/td>/, 'handler ms per message and the rate');
  assert.match(html, /Busiest key: k0/);
  assert.match(html, /data-consumers="backlogGrowthPerSecond" data-value="70.8">\+70\.8 msg\/s while sending/);
  assert.match(html, /data-consumers="backlogMax" data-value="521">max 521, 501 when sending ended/);
  assert.match(html, /data-consumers="oldestUnprocessedMsMax" data-value="12258">max 12,258 ms, 6,129 ms when sending ended/);
  assert.doesNotMatch(html, /Head-of-line victims/, 'no poison messages: no victims part');
});

test('the consumers section shows head-of-line victims in runs with poison messages', () => {
  const html = consumersSection(result({ ...consumers, holVictims: { policy: 'retry', blockers: 12, blockedMs: 3400, victims: 541, victimKeys: 74, addedMsMean: 1171.4, addedMsMax: 2950, addedMsTotal: 633_727 } }));
  assert.match(html, /Head-of-line victims/);
  assert.match(html, /data-consumers="victims" data-value="541">541 messages of 74 keys/);
  assert.match(html, /data-consumers="blockers" data-value="12">12, blocking their lanes 3,400 ms in all/);
  assert.match(html, /mean 1,171 ms, max 2,950 ms, 633,727 ms in all/);
});

test('a result without consumers (before v1.3) says so; the report page links the section', () => {
  assert.match(consumersSection(result()), /class="missing">No consumer figures/);
  const page = renderReport(result(consumers));
  assert.match(page, /href="#consumers"/);
  assert.match(page, /<section id="consumers">/);
});
