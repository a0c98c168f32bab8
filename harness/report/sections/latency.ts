/** Latency: percentile curves (log-scaled tail) and the figures behind them. */
import { dataAttrs, esc } from '../html.ts';
import { formatCount, formatDuration } from '../format.ts';
import type { LatencySummary, ReportResult } from '../view.ts';
import type { ReportSection } from './contract.ts';

export const METRIC_LABELS: Record<string, string> = {
  publish: 'publish (send to ack)',
  publishDelay: 'publish delay (intended to actual send)',
  endToEnd: 'end-to-end (intended send to handler start)',
  handler: 'handler time',
  keyWait: 'key wait (receipt to handler start)',
};

export const STATS: [keyof LatencySummary, string][] = [
  ['p50', 'p50'],
  ['p90', 'p90'],
  ['p99', 'p99'],
  ['p999', 'p99.9'],
  ['p9999', 'p99.99'],
  ['max', 'max'],
];

export function cells(metric: string, s: LatencySummary | undefined, scope: string): string {
  return STATS.map(([k]) => {
    const v = s && s.count > 0 ? (s[k] as number) : null;
    return `<td class="num"${dataAttrs({ metric, stat: k, scope, us: v })}>${esc(formatDuration(v))}</td>`;
  }).join('');
}

export function latencySection(r: ReportResult): string {
  const whole = r.latency?.whole ?? {};
  const head = `<th>metric</th><th>count</th>${STATS.map(([, l]) => `<th>${l}</th>`).join('')}`;
  const rows = Object.keys(METRIC_LABELS)
    .filter((m) => whole[m])
    .map((m) => `<tr${dataAttrs({ metric: m })}><td>${esc(METRIC_LABELS[m])}</td><td class="num">${esc(formatCount(whole[m].count))}</td>${cells(m, whole[m], 'whole')}</tr>`)
    .join('\n');
  const quiet = r.latency?.publishDelayOutsideFaults;
  const phases = r.latency?.phases ?? [];
  const phaseRows = phases
    .flatMap((p) =>
      (['before', 'during', 'after'] as const).flatMap((ph) =>
        ['endToEnd', 'publish'].map(
          (m) =>
            `<tr><td>${esc(p.fault)}</td><td>${ph}</td><td>${esc(m)}</td><td class="num">${esc(formatCount(p[ph]?.[m]?.count ?? 0))}</td>${cells(m, p[ph]?.[m], `${p.fault}.${ph}`)}</tr>`,
        ),
      ),
    )
    .join('\n');
  return `<section id="latency">
  <h2>Latency</h2>
  <p class="hint">Percentile curves from the measured phase's histograms; the x axis stretches the tail (p50 to p99.99), the y axis is logarithmic. Publish delay shows coordinated omission instead of hiding it.</p>
  <div class="chart" data-chart="latency-curves" id="chart-latency-curves"></div>
  <table class="latency" id="latency-table"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>
  ${quiet && quiet.count > 0 ? `<p class="hint">Publish delay outside fault windows: p99 <span${dataAttrs({ metric: 'publishDelayOutsideFaults', stat: 'p99', us: quiet.p99 })}>${esc(formatDuration(quiet.p99))}</span> over ${esc(formatCount(quiet.count))} sends (the harness keeping its schedule).</p>` : ''}
  ${phaseRows ? `<h3>Before, during and after each fault</h3><table class="latency phases" id="phase-table"><thead><tr><th>fault</th><th>phase</th><th>metric</th><th>count</th>${STATS.map(([, l]) => `<th>${l}</th>`).join('')}</tr></thead><tbody>${phaseRows}</tbody></table>` : ''}
</section>`;
}

export default { order: 30, nav: { id: 'latency', label: 'Latency' }, render: ({ result }) => latencySection(result) } satisfies ReportSection;
