/**
 * docs/defences.md and the dashboard page, rendered from the defences data (docs/defences.json)
 * alone: the doc is what the command printed, and anyone can see which runs, seeds and commit
 * produced each number.
 */
import { esc } from '../report/html.ts';
import { page } from '../report/page.ts';
import type { Spread } from '../matrix/stats.ts';
import type { DefenceCell, DefencesData } from './table.ts';

export const DEFENCES_HTML = 'defences.html';

function num(x: number, digits = 0): string {
  return x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

/** `12` for one run or equal runs; `12 (8-15)` for the median and range of several. */
function spreadText(s: Spread | null, digits = 0, scale = 1): string {
  if (!s) return '—';
  const m = num(s.median * scale, digits);
  return s.n > 1 && s.min !== s.max ? `${m} (${num(s.min * scale, digits)}-${num(s.max * scale, digits)})` : m;
}

/** A cell of the wrong-state table: `49/100 keys (49%), skipped 512, rejected 0, ties 3; 1/1 runs wrong`. */
export function cellText(c: DefenceCell): string {
  if (!c.fits) return `— (${c.unfit ?? 'does not fit'})`;
  if (c.known === 0) return c.runs.length ? `unknown (${c.runs.length} ${c.runs.length === 1 ? 'run' : 'runs'})` : 'not run';
  // Every key's messages still held or undelivered at the end: nothing to judge, which is not "0 wrong".
  if (c.keys && c.keys.max === 0) return `no key judged: no key's final state was reached (${c.known === 1 ? 'the run' : `${c.known} runs`} ended with the messages held or undelivered)`;
  const parts = [`${spreadText(c.wrong)}/${spreadText(c.keys)} keys (${spreadText(c.wrongShare, 0, 100)}%)`, `skipped ${spreadText(c.skipped)}`, `rejected ${spreadText(c.rejected)}`];
  for (const [name, s] of Object.entries(c.figures)) if (s) parts.push(`${name} ${spreadText(s)}`);
  const runs = `${c.runsWrong}/${c.known} ${c.known === 1 ? 'run' : 'runs'} wrong${c.runs.length > c.known ? `, ${c.runs.length - c.known} unknown` : ''}`;
  return `${parts.join(', ')}; ${runs}`;
}

/** The cost of a strategy over every known run it had, all columns together. */
function costRow(d: DefencesData, strategy: string): string[] {
  const cells = d.cells.filter((c) => c.strategy === strategy && c.known > 0);
  const pool = (pick: (c: DefenceCell) => Spread | null) => {
    const v = cells.map(pick).filter((s): s is Spread => s !== null);
    if (!v.length) return null;
    // Medians of the cells; their median and the cells' whole range.
    const medians = v.map((s) => s.median).sort((a, b) => a - b);
    const mid = medians.length >> 1;
    const median = medians.length % 2 ? medians[mid] : (medians[mid - 1] + medians[mid]) / 2;
    return { median, min: Math.min(...v.map((s) => s.min)), max: Math.max(...v.map((s) => s.max)), n: v.reduce((n, s) => n + s.n, 0) };
  };
  return [
    strategy,
    spreadText(pool((c) => c.cost.storeMsPerMessage), 3),
    spreadText(pool((c) => c.cost.messagesPerSecond)),
    spreadText(pool((c) => c.cost.writesPerMessage), 2),
    spreadText(pool((c) => c.cost.heldMessages ?? null)),
    spreadText(pool((c) => c.cost.peakRssMiB ?? null)),
    spreadText(pool((c) => c.cost.readsPerMessage ?? null), 3),
    spreadText(pool((c) => c.cost.addedLatencyP99Ms ?? null)),
    ...Object.keys(d.figures).map((f) => spreadText(pool((c) => c.figures[f] ?? null))),
  ];
}

/** The intro's words for the mode rows, if any. */
function modeRows(d: DefencesData): string {
  const names = Object.keys(d.modes ?? {}).filter((m) => d.rows.includes(m));
  return names.length ? `, then every concurrency mode that is a hot-key defence (${names.map((m) => `\`${m}\``).join(', ')}), run as the consumers' mode beside the column's own strategy, whose final state it is judged by` : '';
}

function modeList(d: DefencesData): string {
  const modes = Object.entries(d.modes ?? {}).filter(([m]) => d.rows.includes(m));
  return modes.length ? `\n${modes.map(([m, what]) => `- **${m}** (concurrency mode): ${what}.`).join('\n')}\n` : '';
}

export interface Tables {
  wrong: { head: string[]; rows: string[][] };
  cost: { head: string[]; rows: string[][] };
}

export function defenceTables(d: DefencesData): Tables {
  const cell = (column: string, strategy: string) => d.cells.find((c) => c.column === column && c.strategy === strategy);
  const ran = d.rows.filter((s) => d.cells.some((c) => c.strategy === s && c.fits));
  return {
    wrong: {
      head: ['defence', ...d.columns.map((c) => c.name)],
      rows: ran.map((s) => [s, ...d.columns.map((c) => { const x = cell(c.name, s); return x ? cellText(x) : 'not run'; })]),
    },
    cost: {
      head: ['defence', 'store ms per message', 'messages/s handled', 'store writes per message', 'held messages per run', 'peak consumer memory (MiB)', 'owner reads per message', 'added latency p99 (ms)', ...Object.keys(d.figures).map((f) => `${f} per run`)],
      rows: ran.map((s) => costRow(d, s)),
    },
  };
}

function mdTable(t: { head: string[]; rows: string[][] }): string {
  const line = (r: string[]) => `| ${r.map((x) => x.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(t.head), line(t.head.map(() => '---')), ...t.rows.map(line)].join('\n');
}

export function defencesMarkdown(d: DefencesData): string {
  const t = defenceTables(d);
  const runs = d.cells.filter((c) => c.runs.length).map((c) => `- ${c.column} × ${c.strategy}: ${c.runs.map((r) => `${r.runId} (seed ${r.seed}, ${r.verdict})`).join(', ')}`);
  return `# Consumer defences, measured

Generated by \`convoy defences${d.repeats > 1 ? ` --repeat ${d.repeats}` : ''}\` from \`docs/defences.json\`; do not edit by hand.
Commit ${d.commit}, ${d.created}, ${d.repeats} ${d.repeats === 1 ? 'run' : 'runs'} per cell, matrix seed ${d.seed}${d.wallTimeMs !== null ? `, wall time ${num(d.wallTimeMs / 60_000, 1)} min` : ''}.

Columns are fault shapes that break per-key order (one scenario each in \`workloads/defences/\`); rows
are every consumer strategy in the catalogue that fits the column's entity, each run **live** as the
consumers' own strategy (not by replay)${modeRows(d)}. A number is the median over a cell's known runs, with the
range in brackets when runs differ; \`unknown\` runs are listed and never counted.
${modeList(d)}
## Wrong final states

Keys whose final state differs from the truth (and their share of the keys), messages the strategy
skipped (stale, duplicate, a tie) and rejected (a gap), the strategy's own counts, and in how many
runs any key ended wrong.

${mdTable(t.wrong)}

## Cost

Measured in the consumer processes over every run of the strategy: store time per message (what the
strategy adds to the handler), messages handled per second of the consumers' busy window (the
workloads send at a fixed rate, so this is the rate they kept up with), SQLite rows written per
message (\`total_changes\`); from the strategy's own costs (\`finalState.<strategy>.costs\` of each run's
result): messages it held back per run (the resequencer), the peak resident memory of a consumer
process, reads of the owner service per message handled (notification; the resequencer's fetches),
and the p99 of the latency holding added to released messages (— for a strategy that never held one,
or data from before these were measured)${Object.keys(d.figures).length ? ', and the strategies\' own counts per run' : ''}. Median of the cells, range over every run.

${mdTable(t.cost)}
${Object.keys(d.figures).length ? `\n${Object.entries(d.figures).map(([f, what]) => `- **${f}**: ${what}.`).join('\n')}\n` : ''}
## Columns

${d.columns.map((c) => `- **${c.name}** (\`${c.file}\`, ${c.broker}, ${c.entity.kind} with ${c.entity.events} events; faults: ${c.faults.join(', ') || 'none'}): ${c.description.trim()}`).join('\n')}

## Runs

Re-run the whole table with \`./convoy defences${d.repeats > 1 ? ` --repeat ${d.repeats}` : ''} --seed ${d.seed}\` (the same plan: the same seeds per repeat).

${runs.join('\n')}
`;
}

function htmlTable(id: string, t: { head: string[]; rows: string[][] }): string {
  return `<table class="runs" id="${id}"><thead><tr>${t.head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${t.rows
    .map((r) => `<tr>${r.map((x) => `<td>${esc(x)}</td>`).join('')}</tr>`)
    .join('\n')}</tbody></table>`;
}

/** The dashboard page: the same tables, self-contained. */
export function defencesPage(d: DefencesData): string {
  const t = defenceTables(d);
  const body = `<header><h1>convoy defences</h1>
  <p class="hint">Commit ${esc(d.commit)}, ${esc(d.created)}, ${d.repeats} per cell, seed ${d.seed}. Rows: every strategy that fits the column's entity, run live by the consumers, then every concurrency mode that is a defence, beside the column's own strategy.</p></header>
<section id="wrong"><h2>Wrong final states</h2>${htmlTable('defences-wrong', t.wrong)}</section>
<section id="cost"><h2>Cost</h2>${htmlTable('defences-cost', t.cost)}</section>
<section id="columns"><h2>Columns</h2><ul>${d.columns.map((c) => `<li><strong>${esc(c.name)}</strong>: ${esc(c.description)}</li>`).join('')}</ul></section>`;
  return page({ title: 'convoy defences', nav: [['#wrong', 'Wrong states'], ['#cost', 'Cost'], ['#columns', 'Columns']], body, data: d, scripts: [] });
}
