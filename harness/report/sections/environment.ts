/** The scenario and the environment of the run (secrets redacted). */
import { esc } from '../html.ts';
import type { ReportResult } from '../view.ts';
import type { ReportSection } from './contract.ts';

function pre(id: string, value: unknown): string {
  return `<pre class="json" id="${id}">${esc(JSON.stringify(value ?? null, null, 2))}</pre>`;
}

export function environmentSection(r: ReportResult): string {
  const h = r.harness;
  return `<section id="environment">
  <h2>Scenario and environment</h2>
  <p class="hint">Secrets (passwords, access keys, connection-string keys) are shown as ***.</p>
  ${h ? `<dl class="identity">
    <dt>Drain</dt><dd>${h.drain ? `${h.drain.drained ? 'drained' : 'not drained'} after ${esc(h.drain.waitedMs)} ms (${esc(h.drain.reason)})` : '—'}</dd>
    <dt>Worst event-loop lag</dt><dd>${esc(h.worstLoopLagMs ?? '—')} ms</dd>
    <dt>Incomplete</dt><dd>${h.incomplete?.length ? esc(h.incomplete.join('; ')) : 'no'}</dd>
  </dl>` : ''}
  <details open><summary>Scenario</summary>${pre('scenario-json', r.scenario)}</details>
  <details><summary>Environment</summary>${pre('environment-json', r.environment)}</details>
  <details><summary>Versions</summary>${pre('versions-json', r.versions)}</details>
  ${h ? `<details><summary>Harness</summary>${pre('harness-json', h)}</details>` : ''}
  ${r.workload?.finalState ? `<details><summary>Final state per strategy</summary>${pre('final-state-json', r.workload.finalState)}</details>` : ''}
</section>`;
}

export default { order: 100, nav: { id: 'environment', label: 'Scenario' }, render: ({ result }) => environmentSection(result) } satisfies ReportSection;
