/** Key skew: traffic share by key rank, and traffic per lane. */
import { dataAttrs, esc } from '../html.ts';
import { formatCount, formatShare } from '../format.ts';
import type { ReportResult } from '../view.ts';
import type { ReportSection } from './contract.ts';

export function skewSection(r: ReportResult): string {
  const s = r.workload?.skew;
  if (!s) return `<section id="skew"><h2>Key skew</h2><p class="missing">No skew figures in this result.</p></section>`;
  const laneRows = s.lanes
    .map(
      (l) => `<tr${dataAttrs({ lane: l.lane, messages: l.messages })}><td>${esc(l.lane)}</td><td class="num">${esc(formatCount(l.messages))}</td><td class="num">${esc(formatShare(l.share))}</td>
  <td class="num">${esc(formatCount(l.keys))}</td><td>${esc(l.topKey ?? '—')}</td><td class="num">${esc(formatShare(l.topKeyShare))}</td></tr>`,
    )
    .join('\n');
  return `<section id="skew">
  <h2>Key skew</h2>
  <dl class="identity">
    <dt>Messages</dt><dd>${esc(formatCount(s.messages))} over ${esc(formatCount(s.keysSeen))} keys seen (of ${esc(formatCount(s.keys))})</dd>
    <dt>Busiest key</dt><dd>${esc(s.top1.key ?? '—')}: <span${dataAttrs({ skew: 'top1', value: s.top1.share })}>${esc(formatShare(s.top1.share))}</span> of the traffic</dd>
    <dt>Top 10 keys</dt><dd><span${dataAttrs({ skew: 'top10', value: s.top10.share })}>${esc(formatShare(s.top10.share))}</span></dd>
    <dt>Top 1% of keys</dt><dd>${esc(formatCount(s.top1Percent.keys))} keys carry ${esc(formatShare(s.top1Percent.share))}</dd>
  </dl>
  <div class="chart-row">
    <div class="chart" data-chart="key-share" id="chart-key-share"></div>
    <div class="chart" data-chart="lane-traffic" id="chart-lane-traffic"></div>
  </div>
  ${s.lanes.length ? `<table class="lanes" id="lane-table"><thead><tr><th>lane</th><th>messages</th><th>share</th><th>keys</th><th>busiest key</th><th>its share of the lane</th></tr></thead><tbody>${laneRows}</tbody></table>` : '<p class="hint">No lane was reported by the acks or applies.</p>'}
</section>`;
}

export default { order: 50, nav: { id: 'skew', label: 'Key skew' }, render: ({ result }) => skewSection(result) } satisfies ReportSection;
