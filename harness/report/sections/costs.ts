/**
 * What the consumers' own strategy cost (result `workload.finalState.<live>.costs`, made by
 * harness/consumer/strategies/costs.ts): held messages and their peaks, memory, the added
 * latency of released messages, alerts, fetches and lock renewals (the resequencer); reads per
 * event and the owner's read latency (notification); and each time held messages filled a
 * consumer's in-flight cap, so its lanes got nothing more until a release.
 */
import { dataAttrs, esc } from '../html.ts';
import { formatCount, formatDuration } from '../format.ts';
import type { LatencySummary, ReportResult } from '../view.ts';
import { STATS, cells } from './latency.ts';
import type { ReportSection } from './contract.ts';

interface Costs {
  consumers: number;
  counts: Record<string, number>;
  peaks: Record<string, number>;
  latency: Record<string, LatencySummary>;
  derived?: { peakHeldTotal?: number; heldPerSecond?: number[]; capStalls?: { consumer: string; atMs: number; ms: number | null }[] };
}

/** Figures with a label, in the order the section shows them; the rest follow under their own names. */
const COUNTS: [string, string][] = [
  ['held', 'messages held'],
  ['released', 'released from hold'],
  ['heldAtEnd', 'still held at the end'],
  ['alerts', 'alerts at the bound'],
  ['fetches', 'fetches from the owner'],
  ['fetchErrors', 'failed fetches'],
  ['renewals', 'lock renewals'],
  ['renewalFailures', 'failed lock renewals'],
  ['events', 'events handled'],
  ['reads', 'owner reads by the strategy'],
  ['ownerReads', 'owner reads (all)'],
  ['ownerReadErrors', 'failed owner reads'],
  ['retries', 'read retries'],
  ['staleReads', 'reads behind the event'],
  ['capStalls', 'in-flight cap stalls'],
  ['capStalledMs', 'time stalled by the cap (ms, summed over consumers)'],
];
const PEAKS: [string, string][] = [
  ['peakHeld', 'peak held in one consumer'],
  ['peakHeldPerKey', 'peak held per key'],
  ['peakRetriesPerEvent', 'peak read retries of one event'],
];
const LATENCY: Record<string, string> = {
  addedLatency: 'added latency of released messages (held until applied)',
  ownerRead: "owner read latency (the owner's answer, as the consumer timed it)",
};

const row = (name: string, label: string, value: string, raw: number | null) =>
  `<tr${dataAttrs({ cost: name, value: raw })}><td>${esc(label)}</td><td class="num">${esc(value)}</td></tr>`;

function figureRows(c: Costs): string[] {
  const rows: string[] = [];
  const shown = new Set<string>();
  for (const [k, label] of COUNTS) if (k in c.counts) (shown.add(k), rows.push(row(k, label, formatCount(c.counts[k]), c.counts[k]!)));
  const events = c.counts.events ?? 0;
  const reads = c.counts.reads ?? c.counts.ownerReads;
  if (events > 0 && reads !== undefined) rows.push(row('readsPerEvent', 'reads per event', (reads / events).toFixed(2), reads / events));
  for (const [k, label] of PEAKS) if (k in c.peaks) (shown.add(k), rows.push(row(k, label, formatCount(c.peaks[k]), c.peaks[k]!)));
  const total = c.derived?.peakHeldTotal;
  if (total !== undefined) rows.push(row('peakHeldTotal', 'peak held in total (all consumers)', formatCount(total), total));
  const rss = c.peaks.peakRssBytes;
  if (rss !== undefined) (shown.add('peakRssBytes'), rows.push(row('peakRssBytes', 'peak memory of a consumer (RSS)', `${(rss / 1048576).toFixed(0)} MiB`, rss)));
  for (const [k, v] of [...Object.entries(c.counts), ...Object.entries(c.peaks)]) if (!shown.has(k)) rows.push(row(k, k, formatCount(v), v));
  return rows;
}

function strategyCosts(strategy: string, c: Costs): string {
  const latencies = Object.entries(c.latency).filter(([, s]) => s && s.count > 0);
  const latencyTable = latencies.length
    ? `<table class="latency" data-costs-latency="${esc(strategy)}"><thead><tr><th>latency</th><th>count</th>${STATS.map(([, l]) => `<th>${l}</th>`).join('')}</tr></thead><tbody>${latencies
        .map(([m, s]) => `<tr${dataAttrs({ metric: m })}><td>${esc(LATENCY[m] ?? m)}</td><td class="num">${esc(formatCount(s.count))}</td>${cells(m, s, `costs.${strategy}`)}</tr>`)
        .join('\n')}</tbody></table>`
    : '';
  const perSecond = c.derived?.heldPerSecond;
  const growth = perSecond?.length
    ? `<p${dataAttrs({ cost: 'heldPerSecond' })}>Held at the end of each second of the run (all consumers): ${esc(perSecond.join(', '))}.</p>`
    : '';
  const stalls = c.derived?.capStalls ?? [];
  const stallTable = stalls.length
    ? `<h3>When the in-flight cap stalled a consumer</h3>
  <p class="hint">Held messages count toward a consumer's in-flight cap (its prefetch, or its concurrency mode's limit: 1 in partition mode); when they fill it the consumer gets nothing more, on any of its lanes, until a held message is released.${(c.counts.capStalls ?? 0) > stalls.length ? ` The first ${stalls.length} of ${formatCount(c.counts.capStalls)}.` : ''}</p>
  <table class="cap-stalls" data-cap-stalls="${esc(strategy)}"><thead><tr><th>consumer</th><th>from (s after the start)</th><th>lasted</th></tr></thead><tbody>${stalls
        .map((s) => `<tr${dataAttrs({ consumer: s.consumer, 'at-ms': s.atMs, ms: s.ms })}><td>${esc(s.consumer)}</td><td class="num">${esc((s.atMs / 1000).toFixed(2))}</td><td class="num">${esc(s.ms === null ? 'until the consumer stopped' : formatDuration(s.ms * 1000))}</td></tr>`)
        .join('\n')}</tbody></table>`
    : (c.counts.held ?? 0) > 0
      ? '<p class="hint">Held messages never filled a consumer\'s in-flight cap.</p>'
      : '';
  return `<h3>${esc(strategy)} <span class="hint">(${esc(formatCount(c.consumers))} consumers reported)</span></h3>
  <table class="costs" data-costs="${esc(strategy)}"><thead><tr><th>figure</th><th>value</th></tr></thead><tbody>${figureRows(c).join('\n')}</tbody></table>
  ${growth}
  ${latencyTable}
  ${stallTable}`;
}

export function costsSection(r: ReportResult): string {
  const withCosts = Object.entries((r.workload?.finalState ?? {}) as Record<string, { costs?: Costs }>).filter(([, s]) => s.costs);
  if (!withCosts.length) return '';
  return `<section id="costs">
  <h2>What the strategy cost</h2>
  <p class="hint">Measured in the consumer processes while they ran the strategy live (counts summed over the consumers, peaks the highest of them, latencies merged).</p>
  ${withCosts.map(([strategy, s]) => strategyCosts(strategy, s.costs!)).join('\n')}
</section>`;
}

export default { order: 90, nav: { id: 'costs', label: 'Strategy cost' }, render: ({ result }) => costsSection(result) } satisfies ReportSection;
