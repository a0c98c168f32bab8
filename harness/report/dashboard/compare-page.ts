/**
 * compare.html: two runs side by side (figures, anomalies, expectations, broker settings and
 * versions, latency curves overlaid). Driven by the query string or the hash: ?a=<run>&b=<run>.
 */
import { page } from '../page.ts';
import type { RunSummary } from './summary.ts';

export function comparePage(runs: RunSummary[]): string {
  const body = `<header><h1>Compare two runs</h1>
  <p class="hint">Pick two runs of one scenario (a change over time), or two runs of different broker configurations. The link keeps the choice: <code>compare.html?a=&lt;run&gt;&amp;b=&lt;run&gt;</code>. Differing values are highlighted. <a href="index.html">All runs</a></p>
  <div class="compare-pick"><label>A <select id="pick-a"></select></label><label>B <select id="pick-b"></select></label></div>
</header>
<section id="compare">
  <p id="compare-empty" class="missing" hidden>Fewer than two runs to compare.</p>
  <table class="compare" id="compare-table"><thead><tr><th></th><th id="head-a"></th><th id="head-b"></th><th>B − A</th></tr></thead><tbody></tbody></table>
  <div class="chart" data-chart="compare-curves" id="chart-compare-curves"></div>
</section>`;
  return page({ title: 'convoy: compare runs', nav: [['index.html', 'All runs']], body, data: { runs }, scripts: ['compare.js'] });
}
