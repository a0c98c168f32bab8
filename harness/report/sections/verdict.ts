/** The verdict, the expectation table (expected vs found, with window scopes) and every anomaly's count. */
import { ANOMALY_TYPES } from '../../checker/types.ts';
import { unitSuffix } from '../../checker/thresholds.ts';
import { dataAttrs, esc } from '../html.ts';
import { formatCount, relativeTimes } from '../format.ts';
import { settleMsOf, type ExpectationResult, type ReportResult } from '../view.ts';
import type { ReportSection } from './contract.ts';

export function scopeLabel(e: Pick<ExpectationResult, 'window'> & { scope?: string }): string {
  if (e.scope !== undefined) return e.scope;
  return e.window ? `${e.window.relation} ${e.window.fault}` : 'whole run';
}

/** A count, or a threshold's figure with its unit. */
function foundText(e: { found: number | null; unit?: string }): string {
  if (e.found === null) return '—';
  // A share of the target keeps its decimals; counts, ms and rates are grouped.
  return `${e.unit === 'of target' ? e.found : formatCount(e.found)}${unitSuffix(e.unit)}`;
}

export function heldLabel(held: boolean | null): string {
  return held === true ? 'held' : held === false ? 'FAILED' : 'undecided';
}

export function verdictSection(r: ReportResult): string {
  const reasons = r.verdict.reasons ?? [];
  const expectations = r.expectations ?? [];
  const rows = expectations
    .map((e) => {
      const informational = e.source === 'default' && e.expected === 'any';
      const cls = e.held === false ? 'failed' : e.held === null ? 'undecided' : informational ? 'informational' : 'held';
      return `<tr class="expectation ${cls}"${dataAttrs({ type: e.type, scope: scopeLabel(e), expected: e.expected, found: e.found, keys: e.keys, held: String(e.held), source: e.source })}>
  <td>${esc(e.type)}${e.strategy ? ` (${esc(e.strategy)})` : ''}</td><td>${esc(scopeLabel(e))}</td><td class="num">${esc(e.expected)}</td>
  <td class="num found">${esc(foundText(e))}</td><td class="num">${e.keys === null ? '—' : esc(formatCount(e.keys))}</td>
  <td class="held">${esc(heldLabel(e.held))}</td><td>${esc(e.source)}</td></tr>`;
    })
    .join('\n');
  const anomalies = r.anomalies ?? {};
  const t = r.timeline;
  const origin = t?.series?.originUs ?? t?.measureStartUs ?? 0;
  const lo = (t?.startUs ?? origin) - 3_600_000_000;
  const hi = (t?.endUs ?? origin) + 3_600_000_000;
  const note = (x: { key: string | null; producer?: string | null; note: string }) =>
    `${x.key !== null ? `<code>${esc(x.key)}</code>${x.producer ? ` (${esc(x.producer)})` : ''}: ` : ''}${esc(origin ? relativeTimes(x.note, origin, lo, hi) : x.note)}`;
  // Runs across hosts: what hangs on two hosts' times closer than their clocks are known.
  const anyUncertain = ANOMALY_TYPES.some((t) => anomalies[t]?.uncertain);
  const uncertainCell = (a: NonNullable<typeof anomalies[keyof typeof anomalies]>) => {
    if (!anyUncertain) return '';
    const u = a.uncertain;
    const first = u?.examples[0] as { margin?: number; uncertainty?: number } | undefined;
    const why = first?.margin !== undefined ? ` title="e.g. ${esc(formatCount(first.margin))} µs apart, uncertainty ${esc(formatCount(first.uncertainty ?? 0))} µs"` : '';
    return `<td class="num uncertain"${why}>${u ? `${esc(formatCount(u.count))} (${esc(formatCount(u.keys))} keys)` : '—'}</td>`;
  };
  const anomalyRows = ANOMALY_TYPES.filter((t) => anomalies[t])
    .map((t) => {
      const a = anomalies[t]!;
      const notes = (a.examples ?? []).slice(0, 3).map((x) => `<li>${note(x)}</li>`).join('');
      return `<tr class="anomaly${a.count > 0 ? ' nonzero' : ''}"${dataAttrs({ type: t, count: a.count, keys: a.keys, uncertain: a.uncertain?.count })}>
  <td>${esc(t)}</td><td class="num">${esc(formatCount(a.count))}</td><td class="num">${esc(formatCount(a.keys))}</td>${uncertainCell(a)}<td>${notes ? `<ul class="examples">${notes}</ul>` : ''}</td></tr>`;
    })
    .join('\n');
  return `<section id="verdict">
  <h2>Verdict: <span class="verdict-text verdict-${esc(r.verdict.status)}" id="verdict-status">${esc(r.verdict.status)}</span></h2>
  ${reasons.length ? `<ul class="reasons" id="verdict-reasons">${reasons.map((x) => `<li>${esc(x)}</li>`).join('')}</ul>` : '<p>Every expectation held.</p>'}
  <h3>Expectations</h3>
  <p class="hint">Expected vs found for each anomaly type, counted within the expectation's scope (a fault's window runs from its start to its end plus the settle time${settleMsOf(r) !== undefined ? ` of ${esc(settleMsOf(r))} ms` : ''}). Dimmed rows are informational defaults.</p>
  <table class="expectations" id="expectation-table">
    <thead><tr><th>anomaly or threshold</th><th>scope</th><th>expected</th><th>found</th><th>keys</th><th>result</th><th>source</th></tr></thead>
    <tbody>${rows}</tbody>
  </table>
  <h3>Anomalies over the whole run</h3>
  <p class="hint">Times in the examples are seconds from the start of the measured phase.${anyUncertain ? ' Uncertain: anomalies that hang on two hosts\' times closer than their clocks are known; not in the count (see Hosts).' : ''}</p>
  <table class="anomalies" id="anomaly-table">
    <thead><tr><th>type</th><th>count</th><th>keys</th>${anyUncertain ? '<th>uncertain</th>' : ''}<th>examples</th></tr></thead>
    <tbody>${anomalyRows}</tbody>
  </table>
</section>`;
}

export default { order: 10, nav: { id: 'verdict', label: 'Verdict' }, render: ({ result }) => verdictSection(result) } satisfies ReportSection;
