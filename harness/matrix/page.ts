/**
 * matrix.html: the comparison as a self-contained page (the reports' shell, harness/report/page.ts):
 * verdict and cross-cell expectations, the table, per anomaly type a bar per cell with its
 * Wilson interval, and each cell's merged latency percentile curves overlaid.
 */
import { dataAttrs, esc } from '../report/html.ts';
import { page } from '../report/page.ts';
import type { MatrixComparison } from './compare.ts';
import { anomalyColumns, comparisonTable, shareText } from './table.ts';

export const MATRIX_HTML = 'matrix.html';

function shareBars(c: MatrixComparison, type: string, color: string): string {
  const rows = c.cells
    .map((cell) => {
      const a = cell.anomalies[type];
      if (cell.allUnknown || !a || a.of === 0) return `<span>${esc(cell.label)}</span><span class="hint">unknown: no known run</span><span></span>`;
      const [lo, hi] = a.interval.map((x) => (x * 100).toFixed(1));
      return `<span>${esc(cell.label)}</span><span class="share-track"${dataAttrs({ cell: cell.id, type, share: a.share })}><span class="share-bar" style="width:${((a.share ?? 0) * 100).toFixed(1)}%;background:${color}"></span><span class="share-ci" style="left:${lo}%;width:${(Number(hi) - Number(lo)).toFixed(1)}%"></span></span><span class="num">${esc(shareText(cell, type))}</span>`;
    })
    .join('\n');
  return `<h3>${esc(type)}</h3><div class="share-bars">${rows}</div>`;
}

const COLORS: Record<string, string> = { reorder: '#d62728', duplicate: '#17becf', overlap: '#e377c2', gap: '#ff7f0e', regression: '#9467bd', lost: '#000000', split: '#bcbd22' };

export function matrixPage(c: MatrixComparison, runHref: (dir: string) => string): string {
  const t = comparisonTable(c);
  const table = `<table class="runs" id="matrix-table"><thead><tr>${t.head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${t.rows
    .map((r, i) => `<tr${dataAttrs({ cell: c.cells[i].id, unknown: c.cells[i].allUnknown || undefined })}>${r.map((x) => `<td>${esc(x)}</td>`).join('')}</tr>`)
    .join('\n')}</tbody></table>`;
  const expectations = c.expectations.length
    ? `<table id="matrix-expectations"><thead><tr><th>expectation</th><th>cells</th><th>found</th><th>result</th></tr></thead><tbody>${c.expectations
      .map((e) => `<tr class="${e.status === 'failed' ? 'failed' : e.status === 'unknown' ? 'undecided' : ''}"><td>${esc(`${e.anomaly} share ${e.share} where ${JSON.stringify(e.where)}`)}</td><td>${esc(e.cells.join(', '))}</td><td>${esc(`${e.appeared}/${e.known}${e.unknown ? ` (+${e.unknown} unknown)` : ''}`)}</td><td class="verdict-cell ${e.status === 'held' ? 'pass' : e.status === 'failed' ? 'fail' : 'unknown'}">${esc(e.status)}</td></tr>`)
      .join('')}</tbody></table>`
    : '<p class="hint">No expectations across cells.</p>';
  const runs = c.cells
    .map((cell) => `<li><strong>${esc(cell.label)}</strong>: ${cell.runs.map((r) => `<a href="${esc(runHref(r.dir))}" class="verdict-text verdict-${esc(r.verdict)}" title="${esc(r.reasons.join('\n'))}">${esc(`#${r.repeat + 1} ${r.verdict}`)}</a>`).join(', ') || 'no run yet'}</li>`)
    .join('');
  const body = `<header><h1>convoy matrix ${esc(c.name)} <span class="verdict-badge verdict-${esc(c.verdict.status)}">${esc(c.verdict.status)}</span></h1>
  ${c.description ? `<p class="description">${esc(c.description)}</p>` : ''}
  <p class="hint">${c.runsDone} of ${c.runsPlanned} runs, ${c.repeats} per cell, seed ${c.seed}. Axes: ${esc(c.axes.map((a) => `${a.name} (${a.values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')})`).join('; '))}.</p>
  ${c.verdict.reasons.length ? `<ul class="reasons">${c.verdict.reasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>` : ''}
</header>
<section id="expectations"><h2>Expectations across cells</h2>${expectations}</section>
<section id="table"><h2>Cells</h2>
<p class="hint">Anomaly columns: runs in which the type appeared, share [${esc(c.method.interval)}] · per 1,000 messages sent, median (range). Latency: ${esc(c.method.latency)}. ${esc(c.method.unknown)}. Wrong state: runs with keys left in a wrong final state, per strategy (* the cell's own).</p>
${table}</section>
<section id="shares"><h2>Share of runs with each anomaly</h2><p class="hint">The bar is the share of known runs; the whisker its 95% interval.</p>
${anomalyColumns(c).map((type) => shareBars(c, type, COLORS[type] ?? '#1f77b4')).join('\n')}</section>
<section id="latency"><h2>Latency percentiles</h2>
<h3>end to end</h3><div class="chart" data-chart="matrix-curves" data-latency="endToEnd"></div>
<h3>publish</h3><div class="chart" data-chart="matrix-curves" data-latency="publish"></div></section>
<section id="runs"><h2>Runs</h2><ul>${runs}</ul></section>`;
  return page({
    title: `convoy matrix ${c.name}`,
    nav: [['#expectations', 'Expectations'], ['#table', 'Cells'], ['#shares', 'Anomaly shares'], ['#latency', 'Latency'], ['#runs', 'Runs']],
    body, data: c, scripts: ['matrix.js'],
  });
}
