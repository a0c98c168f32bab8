/**
 * How the consumers handled the load (the result's `consumers`, v1.3): their concurrency mode
 * and strategy with what the handling cost, the busiest key's backlog and the age of its oldest
 * unprocessed message, and, in runs with poison messages, the head-of-line victims. A defence
 * and its control are two runs: each run's report shows its own figures.
 */
import { dataAttrs, esc } from '../html.ts';
import { DASH, formatCount, formatRate } from '../format.ts';
import type { ReportResult } from '../view.ts';
import type { ConsumersSection } from '../../checker/result-schema.ts';
import type { HolVictims } from '../../metrics/hol-victims.ts';
import type { ReportSection } from './contract.ts';

/** A figure with up to `digits` decimals. */
function fig(n: number | null | undefined, digits = 2): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return DASH;
  return n.toLocaleString('en-US', { maximumFractionDigits: digits });
}

/** A dt/dd pair whose value carries a data attribute for tests and scripts. */
function item(label: string, name: string, value: number | null | undefined, text: string): string {
  return `<dt>${esc(label)}</dt><dd><span${dataAttrs({ consumers: name, value: value ?? null })}>${esc(text)}</span></dd>`;
}

export function consumersSection(r: ReportResult): string {
  const c = r.consumers as ConsumersSection | undefined;
  if (!c) return `<section id="consumers"><h2>Consumers</h2><p class="missing">No consumer figures in this result (results before v1.3, or a run that stopped before its analysis).</p></section>`;
  const k = c.costs;
  const costs = `<table class="consumer-costs" id="consumer-costs"><thead><tr><th>mode</th><th>strategy</th><th>handled</th><th>conflated</th><th title="handed to the consumers' strategy, what it skipped or rejected included (Consumer strategies splits them)">to the strategy</th><th>errors</th><th>store transactions</th><th>messages per transaction</th><th>handler ms per message</th><th>rate</th></tr></thead>
<tbody><tr${dataAttrs({ mode: c.mode, strategy: c.strategy })}><td>${esc(c.mode)}</td><td>${esc(c.strategy)}</td><td class="num">${esc(formatCount(k.handled))}</td><td class="num">${esc(formatCount(k.conflated))}</td><td class="num">${esc(formatCount(k.applied))}</td><td class="num">${esc(formatCount(k.errors))}</td>
<td class="num">${esc(formatCount(k.storeTransactions))}</td><td class="num">${esc(fig(k.messagesPerTransaction))}</td><td class="num">${esc(fig(k.handlerMsPerMessage))}</td><td class="num">${esc(formatRate(k.perSecond))}</td></tr></tbody></table>`;
  const h = c.hotKey;
  const hot = h
    ? `<h3>Busiest key: ${esc(h.key)}</h3>
  <dl class="identity" id="hot-key">
    ${item('Offered', 'offeredPerSecond', h.offeredPerSecond, `${fig(h.offeredPerSecond, 1)} msg/s`)}
    ${item('Handled', 'handledPerSecond', h.handledPerSecond, `${fig(h.handledPerSecond, 1)} msg/s`)}
    ${item('Backlog slope', 'backlogGrowthPerSecond', h.backlogGrowthPerSecond, `${h.backlogGrowthPerSecond > 0 ? '+' : ''}${fig(h.backlogGrowthPerSecond, 1)} msg/s while sending`)}
    ${item('Backlog', 'backlogMax', h.backlogMax, `max ${formatCount(h.backlogMax)}, ${formatCount(h.backlogAtEndOfSending)} when sending ended`)}
    ${item('Oldest unprocessed', 'oldestUnprocessedMsMax', h.oldestUnprocessedMsMax, `max ${formatCount(h.oldestUnprocessedMsMax)} ms, ${formatCount(h.oldestUnprocessedMsAtEndOfSending)} ms when sending ended`)}
  </dl>`
    : '<p class="hint">Nothing was sent: no busiest key.</p>';
  const v = c.holVictims as HolVictims | undefined;
  const hol = v
    ? `<h3>Head-of-line victims</h3>
  <p class="hint">Messages of other keys that waited behind a failing message's retries (poison messages): on its lane, or, in key-level modes, for the worker its retries held (an upper bound with several workers).</p>
  <dl class="identity" id="hol-victims">
    ${item('Failing messages', 'blockers', v.blockers, `${formatCount(v.blockers)}, blocking their lanes ${formatCount(v.blockedMs)} ms in all`)}
    ${item('Victims', 'victims', v.victims, `${formatCount(v.victims)} messages of ${formatCount(v.victimKeys)} keys`)}
    ${item('Added latency', 'addedMsMean', v.addedMsMean, `mean ${fig(v.addedMsMean, 0)} ms, max ${fig(v.addedMsMax, 0)} ms, ${formatCount(v.addedMsTotal)} ms in all`)}
  </dl>`
    : '';
  return `<section id="consumers">
  <h2>Consumers</h2>
  <p class="hint">What the handling cost in this run's mode and strategy. A hot-key defence and its control are two runs: compare this run's busiest key with its twin's report.</p>
  ${costs}
  ${hot}
  ${hol}
</section>`;
}

export default { order: 80, nav: { id: 'consumers', label: 'Consumers' }, render: ({ result }) => consumersSection(result) } satisfies ReportSection;
