/** The fault timeline: throughput, backlog and end-to-end latency per second, faults shaded, anomalies marked. */
import { dataAttrs, esc } from '../html.ts';
import { formatSeconds } from '../format.ts';
import { faultWindowsOf, type ReportResult } from '../view.ts';
import type { ReportSection } from './contract.ts';

export function timelineSection(r: ReportResult): string {
  const t = r.timeline;
  const origin = t?.series?.originUs ?? t?.measureStartUs ?? 0;
  const rel = (us: number | null | undefined) => (us === null || us === undefined ? null : (us - origin) / 1e6);
  const windows = faultWindowsOf(r);
  const records = new Map((t?.faults ?? []).map((f) => [f.name, f]));
  const faultRows = windows
    .map((w) => {
      const rec = records.get(w.name);
      return `<tr class="fault"${dataAttrs({ name: w.name, kind: w.kind ?? '' })}><td>${esc(w.name)}</td><td>${esc(w.kind ?? '—')}</td>
  <td class="num">${esc(formatSeconds(rel(w.start)))}</td><td class="num">${esc(formatSeconds(rel(w.end)))}</td><td class="num">${esc(formatSeconds(rel(w.until)))}</td>
  <td>${rec?.error ? `<span class="error">${esc(rec.error)}</span>` : rec?.evidence !== undefined ? `<code>${esc(JSON.stringify(rec.evidence))}</code>` : ''}</td></tr>`;
    })
    .join('\n');
  if (!t?.series) {
    return `<section id="timeline"><h2>Fault timeline</h2><p class="missing">This result has no per-second series (the run stopped before its measurement).</p></section>`;
  }
  return `<section id="timeline">
  <h2>Fault timeline</h2>
  <p class="hint">Seconds from the start of the measured phase (after the warm-up). Shaded: fault windows (darker while the fault is active, lighter for the settle time after it). Ticks along the top: anomalies where they were attributed, one row and colour per type.</p>
  <div class="chart" data-chart="throughput" id="chart-throughput"></div>
  <div class="chart" data-chart="backlog" id="chart-backlog"></div>
  <div class="chart" data-chart="e2e-over-time" id="chart-e2e-over-time"></div>
  <div class="legend-anomalies" id="anomaly-legend"></div>
  ${t.anomaliesTotal !== undefined && t.anomalies && t.anomaliesTotal > t.anomalies.length ? `<p class="hint">Marked: the first ${esc(t.anomalies.length)} of ${esc(t.anomaliesTotal)} anomaly occurrences.</p>` : ''}
  ${windows.length ? `<table class="faults" id="fault-table"><thead><tr><th>fault</th><th>kind</th><th>start</th><th>end</th><th>window until</th><th>evidence</th></tr></thead><tbody>${faultRows}</tbody></table>` : '<p>No faults in this run.</p>'}
  ${t.rebalances !== undefined ? `<p class="hint">Consumer group rebalances recorded: ${esc(t.rebalances)}.</p>` : ''}
</section>`;
}

export default { order: 20, nav: { id: 'timeline', label: 'Timeline' }, render: ({ result }) => timelineSection(result) } satisfies ReportSection;
