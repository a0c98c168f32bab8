/** The final state per consumer strategy: live or replayed, its effects, wrong keys and fields. */
import { dataAttrs, esc } from '../html.ts';
import { formatCount } from '../format.ts';
import type { ReportResult } from '../view.ts';
import type { ReportSection } from './contract.ts';

interface Score {
  strategy: string;
  primary: boolean;
  mode?: 'live' | 'replay';
  keys: number;
  wrong: number;
  unreachable?: number;
  effects?: { applied: number; skipped: number; rejected: number };
  wrongFields?: Record<string, number>;
  wrongKeys?: { key: string; fields?: string[] }[];
  figures?: Record<string, number>;
}

export function strategiesSection(r: ReportResult): string {
  const scores = Object.values((r.workload?.finalState ?? {}) as unknown as Record<string, Score>);
  if (!scores.length) return `<section id="strategies"><h2>Consumer strategies</h2><p class="missing">No final state was recorded.</p></section>`;
  const rows = scores
    .map((s) => {
      const fields = Object.entries(s.wrongFields ?? {}).map(([f, n]) => `${f} (${formatCount(n)})`).join(', ');
      const own = Object.entries(s.figures ?? {}).map(([f, n]) => `${f} ${formatCount(n)}`).join(', ');
      const examples = (s.wrongKeys ?? []).slice(0, 3).map((w) => `${w.key}${w.fields?.length ? `: ${w.fields.join(', ')}` : ''}`).join('; ');
      return `<tr${dataAttrs({ strategy: s.strategy, wrong: s.wrong, mode: s.mode ?? 'live' })}><td>${esc(s.strategy)}${s.primary ? ' <span class="hint">(the consumers\')</span>' : ''}</td>
  <td>${esc(s.mode ?? 'live')}</td><td class="num">${esc(formatCount(s.wrong))} / ${esc(formatCount(s.keys))}</td><td>${esc(fields || '—')}</td>
  <td class="num">${esc(formatCount(s.effects?.applied ?? 0))}</td><td class="num">${esc(formatCount(s.effects?.skipped ?? 0))}</td><td class="num">${esc(formatCount(s.effects?.rejected ?? 0))}</td><td>${esc(own || '—')}</td><td>${esc(examples || '—')}</td></tr>`;
    })
    .join('\n');
  const unreachable = scores[0].unreachable ?? 0;
  return `<section id="strategies">
  <h2>Consumer strategies</h2>
  <p class="hint">The consumers' strategy ran live on their shared store; every other strategy that fits the entity was replayed after the run from the history, in commit order.${unreachable ? ` ${esc(formatCount(unreachable))} keys with a lost, unseen or abandoned message are left out.` : ''}</p>
  <table class="strategies" id="strategy-table"><thead><tr><th>strategy</th><th>run</th><th>keys wrong</th><th>wrong fields (keys)</th><th>applied</th><th>skipped</th><th>rejected</th><th>its own counts</th><th>examples</th></tr></thead><tbody>${rows}</tbody></table>
</section>`;
}

export default { order: 70, nav: { id: 'strategies', label: 'Strategies' }, render: ({ result }) => strategiesSection(result) } satisfies ReportSection;
