/** The dashboard's index: every run (newest first) and small trend charts per scenario. */
import { dataAttrs, esc } from '../html.ts';
import { formatCount, formatDate, formatDuration, formatRate } from '../format.ts';
import { page } from '../page.ts';
import type { RunSummary } from './summary.ts';

export interface IndexInput {
  runs: RunSummary[];
  problems: { file: string; reason: string }[];
  /** Files next to index.html: [href, label]. */
  files: [string, string][];
  generatedAt: string;
  /** The matrices (convoy matrix) whose runs are among `runs`: grouped under them, not listed one by one. */
  matrices?: MatrixEntry[];
}

export interface MatrixEntry {
  folder: string;
  name: string;
  verdict: string | null;
  /** Its comparison page, next to index.html. */
  href: string | null;
}

function matrixSection(matrices: MatrixEntry[], runs: RunSummary[]): string {
  if (matrices.length === 0) return '';
  const items = matrices
    .map((m) => {
      const mine = runs.filter((r) => r.matrix === m.folder);
      const chips = mine.map((r) => `<a class="chip verdict-${esc(r.verdict)}" title="${esc(`${r.scenario}: ${r.verdict}`)}"${r.report ? ` href="${esc(r.report)}"` : ''}></a>`).join('');
      const title = m.href ? `<a href="${esc(m.href)}">${esc(m.name)}</a>` : esc(m.name);
      return `<li class="matrix"${dataAttrs({ matrix: m.folder })}>${title} <span class="verdict-cell ${esc(m.verdict ?? 'unknown')}">${esc(m.verdict ?? 'no comparison yet')}</span> <span class="hint">${esc(m.folder)}: ${mine.length} run${mine.length === 1 ? '' : 's'}</span><div class="chips">${chips}</div></li>`;
    })
    .join('\n');
  return `<section id="matrices"><h2>Matrices</h2><p class="hint">Runs of a <code>convoy matrix</code>, grouped; the link is its comparison of the cells.</p><ul>${items}</ul></section>`;
}

function versions(v: Record<string, string>): string {
  return Object.entries(v).map(([k, x]) => `${k} ${x}`).join(', ');
}

/** compare.html for this run against the previous run of its scenario. */
function compareHref(runs: RunSummary[], r: RunSummary): string | null {
  const same = runs.filter((x) => x.scenario === r.scenario && (x.started ?? '') < (r.started ?? ''));
  const prev = same[same.length - 1];
  return prev ? `compare.html?a=${encodeURIComponent(prev.runId)}&b=${encodeURIComponent(r.runId)}` : null;
}

export function indexPage(input: IndexInput): string {
  const matrixRuns = input.runs.filter((r) => r.matrix);
  // A matrix's runs are shown under their matrix; the list and the trends keep the other runs.
  const runs = input.runs.filter((r) => !r.matrix);
  const newest = [...runs].reverse();
  const scenarios = [...new Set(runs.map((r) => r.scenario))].sort();
  const count = (v: string) => runs.filter((r) => r.verdict === v).length;
  const rows = newest
    .map((r) => {
      const e2e = r.figures.latency.endToEnd;
      const pub = r.figures.latency.publish;
      const anomalies = Object.entries(r.anomalies).filter(([, n]) => n > 0).map(([t, n]) => `${t} ${formatCount(n)}`).join(', ');
      const cmp = compareHref(runs, r);
      return `<tr class="run"${dataAttrs({ run: r.runId, scenario: r.scenario, verdict: r.verdict })}>
  <td>${r.report ? `<a href="${esc(r.report)}">${esc(r.runId)}</a>` : esc(r.runId)}</td>
  <td>${esc(r.scenario)}</td><td>${esc(formatDate(r.started))}</td>
  <td>${esc(r.broker)}${Object.keys(r.brokerVersions).length ? ` <span class="hint">${esc(versions(r.brokerVersions))}</span>` : ''}</td>
  <td class="hint">${esc(versions(r.clients) || '—')}</td>
  <td class="verdict-cell ${esc(r.verdict)}" title="${esc(r.reasons.join('\n'))}">${esc(r.verdict)}</td>
  <td class="num"${dataAttrs({ us: e2e?.p99 })}>${esc(formatDuration(e2e?.p99))}</td>
  <td class="num">${esc(formatDuration(pub?.p99))}</td>
  <td class="num">${esc(formatRate(r.figures.achievedRate))}</td>
  <td class="num">${esc(formatCount(r.figures.sent))}</td>
  <td>${esc(anomalies || 'none')}</td>
  <td>${cmp ? `<a href="${esc(cmp)}">vs previous</a>` : ''}</td>
</tr>`;
    })
    .join('\n');
  const trends = scenarios
    .map((s) => {
      const mine = runs.filter((r) => r.scenario === s);
      const chips = mine
        .slice(-30)
        .map((r) => `<a class="chip verdict-${esc(r.verdict)}" title="${esc(`${r.runId}: ${r.verdict}`)}"${r.report ? ` href="${esc(r.report)}"` : ''}></a>`)
        .join('');
      return `<div class="trend"${dataAttrs({ scenario: s })}><h3>${esc(s)}</h3><p class="hint">${mine.length} run${mine.length === 1 ? '' : 's'}; latest ${esc(mine[mine.length - 1].verdict)}</p>
  <div class="chart" data-chart="trend"${dataAttrs({ scenario: s })}></div><div class="chips">${chips}</div></div>`;
    })
    .join('\n');
  const body = `<header><h1>convoy dashboard</h1>
  <p class="hint">${runs.length} run${runs.length === 1 ? '' : 's'} of ${scenarios.length} scenario${scenarios.length === 1 ? '' : 's'}: <span id="count-pass">${count('pass')}</span> pass, <span id="count-fail">${count('fail')}</span> fail, <span id="count-unknown">${count('unknown')}</span> unknown${matrixRuns.length ? `; ${matrixRuns.length} more in ${input.matrices?.length ?? 0} matri${input.matrices?.length === 1 ? 'x' : 'ces'}` : ''}. Generated ${esc(formatDate(input.generatedAt))}.</p>
  <p>${[['compare.html', 'compare two runs'] as [string, string], ...input.files].map(([href, l]) => `<a href="${esc(href)}">${esc(l)}</a>`).join(' · ')}</p>
  ${input.problems.length ? `<div class="note"><strong>Unreadable results:</strong><ul id="problems">${input.problems.map((p) => `<li>${esc(p.file)}: ${esc(p.reason)}</li>`).join('')}</ul></div>` : ''}
</header>
${matrixSection(input.matrices ?? [], matrixRuns)}
<section id="runs"><h2>Runs</h2>
<table class="runs" id="runs-table"><thead><tr><th>run</th><th>scenario</th><th>started</th><th>broker</th><th>clients</th><th>verdict</th><th>e2e p99</th><th>publish p99</th><th>rate</th><th>sent</th><th>anomalies</th><th></th></tr></thead>
<tbody>${rows}</tbody></table>
</section>
<section id="trends"><h2>Trends per scenario</h2>
<p class="hint">End-to-end p50 and p99 (left, log scale) and processed messages per second (right) per run over time. The squares below are the latest runs' verdicts, oldest first.</p>
<div class="trend-grid">${trends}</div>
</section>`;
  return page({ title: 'convoy dashboard', nav: [...(matrixRuns.length ? [['#matrices', 'Matrices'] as [string, string]] : []), ['#runs', 'Runs'], ['#trends', 'Trends'], ['compare.html', 'Compare']], body, data: { runs }, scripts: ['dashboard.js'] });
}
