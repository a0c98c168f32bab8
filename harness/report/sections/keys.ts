/** Per-key detail: the order each consumer processed the worst keys in (a Jepsen-style plot). */
import { dataAttrs, esc } from '../html.ts';
import { formatCount } from '../format.ts';
import type { KeyDetailSection } from '../key-detail.ts';
import type { ReportSection } from './contract.ts';

export function keysSection(d: KeyDetailSection): string {
  const blocks = d.keys
    .map((k, i) => {
      const counts = Object.entries(k.counts)
        .map(([t, n]) => `${esc(t)} ${esc(formatCount(n))}`)
        .join(', ');
      return `<div class="key-block"${dataAttrs({ key: k.key })}>
  <h3>Key <code>${esc(k.key)}</code></h3>
  <p class="hint">${counts ? `Anomalies: ${counts}.` : 'No anomalies.'} ${esc(formatCount(k.processEvents))} process events by ${esc(k.consumers.join(', '))}${k.producers.length > 1 ? `; producers ${esc(k.producers.join(', '))} number their own sequences` : ''}${k.thinned ? '; points thinned evenly for the plot (the counts are exact)' : ''}.</p>
  <div class="chart" data-chart="key-order" id="chart-key-${i}"${dataAttrs({ key: k.key })}></div>
</div>`;
    })
    .join('\n');
  return `<section id="keys">
  <h2>Per-key order for the worst keys</h2>
  <p class="hint">Each point is one handling attempt: x = when it landed (handler end; start when it never ended), y = the message's seq, colour = consumer. Rings mark reorders (a first apply landing after a newer one), regressions (an old message applied again after a newer one), gaps (its predecessor was never applied), duplicates, overlaps (started while another attempt on the key was running), handler errors and attempts that never completed; a point is ringed by the first of these that applies. A correct history climbs steadily.</p>
  ${d.note ? `<p class="note">${esc(d.note)}</p>` : ''}
  ${blocks}
</section>`;
}

export default { order: 60, nav: { id: 'keys', label: 'Worst keys' }, render: ({ keys }) => keysSection(keys) } satisfies ReportSection;
