/**
 * The hosts of a run across machines: each convoy agent's share (its workers, what they sent and
 * handled, the rate and CPU; the result's `harness.agents`) and each host's clock against the
 * runner's (the check's `clocks`: the offset at the first and last measurement, the uncertainty
 * under which two hosts' times are not ordered, the drift). A run on one host leaves it out.
 */
import { dataAttrs, esc } from '../html.ts';
import { DASH, formatCount, formatRate } from '../format.ts';
import type { ReportResult } from '../view.ts';
import type { ReportSection } from './contract.ts';

const ms = (us: number): string => `${(us / 1000).toLocaleString('en-US', { maximumFractionDigits: 3 })} ms`;

export function hostsSection(r: ReportResult): string {
  const agents = r.harness?.agents ?? [];
  const clocks = r.check?.clocks ?? [];
  if (agents.length === 0 && clocks.length === 0) return '';
  const agentRows = agents
    .map(
      (a) => `<tr${dataAttrs({ agent: a.agent, acked: a.acked, applied: a.applied, ackedPerSecond: a.ackedPerSecond, cpu: a.cpuMeanPercent })}><td>${esc(a.agent)}</td><td>${esc(a.host)}</td><td class="num">${esc(a.cores)}</td><td>${esc(a.roles.join(', '))}</td><td>${esc(a.workers.join(' '))}</td>
<td class="num">${esc(formatCount(a.acked))}</td><td class="num">${esc(formatCount(a.applied))}</td><td class="num">${esc(formatRate(a.ackedPerSecond))}</td><td class="num">${esc(a.cpuMeanPercent.toFixed(1))}%</td></tr>`,
    )
    .join('\n');
  const clockRows = clocks
    .map(
      (c) => `<tr${dataAttrs({ host: c.host, offsetUs: c.offsetUs.last, uncertaintyUs: c.uncertaintyUs, driftPpm: c.driftPpm, corrected: String(c.corrected) })}><td>${esc(c.host)}</td><td>${esc(c.workers.join(' '))}</td><td class="num">${esc(formatCount(c.measurements))}</td>
<td class="num">${esc(ms(c.offsetUs.first))}</td><td class="num">${esc(ms(c.offsetUs.last))}</td><td class="num">±${esc(ms(c.uncertaintyUs))}</td><td class="num">${c.driftPpm === null ? DASH : `${esc(c.driftPpm.toFixed(1))} ppm`}</td><td>${c.corrected ? 'yes' : 'no (read as stamped)'}</td></tr>`,
    )
    .join('\n');
  return `<section id="hosts">
  <h2>Hosts</h2>
  ${agents.length ? `<h3>Agents</h3>
  <p class="hint">Each agent's share of the run. Rates are from the start to the end of the run; CPU is its workers' mean while the producers sent, summed (percent of one core). Latency histograms are of every host's workers together.</p>
  <table class="agents" id="agent-table">
    <thead><tr><th>agent</th><th>host</th><th>cores</th><th>roles</th><th>workers</th><th>acked</th><th>handled</th><th>acked rate</th><th>CPU</th></tr></thead>
    <tbody>${agentRows}</tbody>
  </table>` : ''}
  ${clocks.length ? `<h3>Clocks</h3>
  <p class="hint">Each host's clock minus the runner's, measured from round trips. The check maps every time to the runner's clock; two times from different hosts closer than their uncertainties are not ordered, and what hangs on them is counted as uncertain.</p>
  <table class="clocks" id="clock-table">
    <thead><tr><th>host</th><th>workers</th><th>measurements</th><th>offset, first</th><th>offset, last</th><th>uncertainty</th><th>drift</th><th>corrected</th></tr></thead>
    <tbody>${clockRows}</tbody>
  </table>` : ''}
</section>`;
}

export default { order: 85, nav: { id: 'hosts', label: 'Hosts' }, render: ({ result }) => hostsSection(result) } satisfies ReportSection;
