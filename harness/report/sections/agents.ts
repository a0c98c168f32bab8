/** Each convoy agent's share of a run whose workers ran on other hosts (docs/agents.md). */
import { dataAttrs, esc } from '../html.ts';
import { formatCount, formatRate } from '../format.ts';
import type { ReportResult } from '../view.ts';
import type { ReportSection } from './contract.ts';

export function agentsSection(r: ReportResult): string {
  const agents = r.harness?.agents;
  if (!agents?.length) return '';
  const rows = agents
    .map(
      (a) => `<tr${dataAttrs({ agent: a.agent, acked: a.acked, applied: a.applied })}><td>${esc(a.agent)}</td><td>${esc(a.host)}</td><td class="num">${esc(a.cores)}</td><td>${esc(a.roles.join(', '))}</td>
  <td>${esc(a.workers.join(', ') || '—')}</td><td class="num">${esc(formatCount(a.acked))}</td><td class="num">${esc(formatRate(a.ackedPerSecond))}</td><td class="num">${esc(formatCount(a.applied))}</td><td class="num">${esc(a.cpuMeanPercent.toFixed(0))}%</td></tr>`,
    )
    .join('\n');
  return `<section id="agents">
  <h2>Agents</h2>
  <p class="hint">The convoy agents that ran some of the workers, each with its share: what its producers had acked and at what rate (from the start instant to the run's end), what its consumers handled, and its workers' mean CPU while the producers sent (percent of one core, summed). Latencies above come from every host's history together.</p>
  <table class="agents" id="agent-table"><thead><tr><th>agent</th><th>host</th><th>cores</th><th>roles</th><th>workers</th><th>acked</th><th>acked rate</th><th>handled</th><th>CPU</th></tr></thead><tbody>${rows}</tbody></table>
</section>`;
}

export default { order: 85, nav: { id: 'agents', label: 'Agents' }, render: ({ result }) => agentsSection(result) } satisfies ReportSection;
