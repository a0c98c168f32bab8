/** The page header: what ran, when, on what, and the headline figures. */
import { dataAttrs, esc } from '../html.ts';
import { formatCount, formatDate, formatDuration, formatRate } from '../format.ts';
import { brokerKind, faultWindowsOf, scenarioName, startedAt, type ReportResult } from '../view.ts';
import type { ReportSection } from './contract.ts';

export function headerSection(r: ReportResult): string {
  const brokerVersions = Object.entries(r.versions?.brokers ?? {}).map(([k, v]) => `${k} ${v}`).join(', ');
  const e2e = r.latency?.whole?.endToEnd;
  const publish = r.latency?.whole?.publish;
  const w = r.workload;
  const figure = (label: string, value: string, attrs: Record<string, string | number | null | undefined> = {}) =>
    `<div class="figure"${dataAttrs(attrs)}><div class="figure-value">${esc(value)}</div><div class="figure-label">${esc(label)}</div></div>`;
  return `<header>
  <h1>${esc(scenarioName(r))} <span class="verdict-badge verdict-${esc(r.verdict.status)}" id="verdict-badge">${esc(r.verdict.status.toUpperCase())}</span></h1>
  ${r.scenario?.description ? `<p class="description">${esc(r.scenario.description)}</p>` : ''}
  <dl class="identity">
    <dt>Run</dt><dd id="run-id">${esc(r.runId)}</dd>
    <dt>Started</dt><dd>${esc(formatDate(startedAt(r)))}</dd>
    <dt>Broker</dt><dd>${esc(brokerKind(r))}${brokerVersions ? ` (${esc(brokerVersions)})` : ''}${r.environment?.emulator ? ` — emulator ${esc(r.environment.emulator.name)} ${esc(r.environment.emulator.version)}` : ''}</dd>
    <dt>Runtime</dt><dd>${esc(r.environment?.runtime ?? '—')}</dd>
    <dt>Seed</dt><dd>${esc(r.seed ?? '—')}</dd>
    <dt>convoy</dt><dd>${esc(r.versions?.convoy ?? '—')} on node ${esc(r.versions?.node ?? '—')}</dd>
  </dl>
  <div class="figures">
    ${figure('messages sent', formatCount(w?.sent), { figure: 'sent', value: w?.sent })}
    ${figure(w?.targetRate ? `achieved rate (target ${formatRate(w.targetRate)})` : 'achieved rate', formatRate(w?.achievedRate), { figure: 'achievedRate', value: w?.achievedRate })}
    ${figure('end-to-end p99', formatDuration(e2e?.count ? e2e.p99 : null), { figure: 'endToEnd.p99', value: e2e?.count ? e2e.p99 : null })}
    ${figure('publish p99', formatDuration(publish?.count ? publish.p99 : null), { figure: 'publish.p99', value: publish?.count ? publish.p99 : null })}
    ${figure('faults', String(faultWindowsOf(r).length || (r.timeline?.faults?.length ?? 0)), { figure: 'faults' })}
  </div>
</header>`;
}

export default { order: 0, render: ({ result }) => headerSection(result) } satisfies ReportSection;
