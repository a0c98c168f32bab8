/**
 * The comparison as a table of text (one row per cell), shared by the Markdown table for a
 * pull request and the HTML page. Anomaly columns: the types that appeared in any cell.
 */
import { DASH, formatCount, formatDuration, formatShare } from '../report/format.ts';
import type { CellComparison, MatrixComparison } from './compare.ts';
import type { Spread } from './stats.ts';

export interface Table {
  head: string[];
  rows: string[][];
}

/** Types worth a column: any cell saw them (reorder always, the matrix's usual question). */
export function anomalyColumns(c: MatrixComparison): string[] {
  return Object.keys(c.cells[0]?.anomalies ?? {}).filter((t) => t === 'reorder' || c.cells.some((cell) => (cell.anomalies[t]?.appeared ?? 0) > 0));
}

function pct(x: number): string {
  return `${Math.round(x * 100)}%`;
}

function per1000(s: Spread | null): string {
  if (!s) return DASH;
  const f = (x: number) => (x === 0 ? '0' : x < 10 ? x.toFixed(2) : x.toFixed(0));
  return s.min === s.max ? `${f(s.median)}/1k` : `${f(s.median)}/1k (${f(s.min)}–${f(s.max)})`;
}

export function shareText(cell: CellComparison, type: string): string {
  const a = cell.anomalies[type];
  if (!a || a.of === 0) return DASH;
  return `${a.appeared}/${a.of} ${formatShare(a.share).replace('.0%', '%')} [${pct(a.interval[0])}–${pct(a.interval[1])}] · ${per1000(a.per1000)}`;
}

function rangeText(s: Spread | null, f: (x: number) => string): string {
  if (!s) return DASH;
  return s.min === s.max ? f(s.median) : `${f(s.median)} (${f(s.min)}–${f(s.max)})`;
}

const percent = (x: number) => `${Math.round(x)}%`;

function wrongText(cell: CellComparison): string {
  const parts = Object.entries(cell.wrongState).map(([strategy, w]) => `${strategy}${w.primary ? '*' : ''} ${w.runsWrong}/${w.of}`);
  return parts.length ? parts.join(', ') : DASH;
}

function expectationsText(cell: CellComparison): string {
  if (cell.expectations.length === 0) return DASH;
  const held = cell.expectations.filter((e) => e.held === e.of).length;
  return `${held}/${cell.expectations.length} always held`;
}

/** Consumer-group columns, when any cell's runs recorded assignments: handovers (per member) and lane time without an owner. */
function groupColumns(cell: CellComparison): string[] {
  const g = cell.group;
  if (!g) return [DASH, DASH];
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const away = Object.entries(g.takenWhileAway).map(([d, s]) => `${d} ${rangeText(s, String)}`).join(', ');
  return [`${rangeText(g.handovers, String)}${away ? `; taken while away: ${away}` : ''}`, `${rangeText(g.unownedMs, seconds)} · longest ${rangeText(g.longestUnownedMs, seconds)}`];
}

/** Each consumer's deliveries, median (range) per run. */
function deliveredText(cell: CellComparison): string {
  const parts = Object.entries(cell.delivered ?? {}).map(([id, s]) => `${id} ${rangeText(s, formatCount)}`);
  return parts.length ? parts.join(' · ') : DASH;
}

export function comparisonTable(c: MatrixComparison): Table {
  const types = anomalyColumns(c);
  const grouped = c.cells.some((cell) => cell.group);
  const head = ['cell', 'runs', ...types, ...(grouped ? ['lane handovers', 'lane time unowned'] : []), 'delivered per consumer', 'rate (msg/s)', 'publish p50 / p99', 'end-to-end p50 / p99', 'CPU host / harness', 'wrong state (runs)', 'expectations'];
  const rows = c.cells.map((cell) => {
    const runs = `${cell.known}${cell.unknown ? ` + ${cell.unknown} unknown` : ''}${cell.runs.length < cell.planned ? ` of ${cell.planned}` : ''}`;
    if (cell.allUnknown) return [cell.label, runs, ...Array(head.length - 2).fill('unknown')];
    const lat = (which: 'publish' | 'endToEnd') => {
      const l = cell.latency[which];
      return l ? `${formatDuration(l.p50)} / ${formatDuration(l.p99)}` : DASH;
    };
    return [
      cell.label, runs, ...types.map((t) => shareText(cell, t)), ...(grouped ? groupColumns(cell) : []), deliveredText(cell),
      rangeText(cell.achievedRate, formatCount), lat('publish'), lat('endToEnd'),
      `${rangeText(cell.cpu.hostPercent, percent)} / ${rangeText(cell.cpu.harnessPercent, percent)}`, wrongText(cell), expectationsText(cell),
    ];
  });
  return { head, rows };
}

function mdCell(s: string): string {
  return s.replace(/\|/g, '\\|');
}

/** The Markdown for a pull request: verdict, the table, the cross-cell expectations, the method. */
export function comparisonMarkdown(c: MatrixComparison): string {
  const t = comparisonTable(c);
  const lines = [
    `### convoy matrix ${c.name}: ${c.verdict.status}`,
    '',
    `${c.runsDone} of ${c.runsPlanned} runs, ${c.repeats} per cell, seed ${c.seed}. Anomaly columns: runs in which it appeared, share [Wilson 95% interval] · per 1,000 messages sent, median (range). Latency from the cells' HDR histograms merged. \`unknown\` runs are not counted in any figure.${c.cells.some((cell) => cell.group) ? ' Lane handovers: lanes assigned to a member other than the one that held them last, median (range) per run, and, per fault that ended a member, how many of the lanes it held as it went another member got next; lane time unowned: lane-seconds without a live owner in the measured phase up to the last send, and the longest stretch of one lane (from the members\' rebalance callbacks: a member stalled past its session is evicted without one, so its lanes move without an unowned stretch).' : ''}`,
    '',
    `| ${t.head.map(mdCell).join(' | ')} |`,
    `|${t.head.map(() => '---').join('|')}|`,
    ...t.rows.map((r) => `| ${r.map(mdCell).join(' | ')} |`),
  ];
  if (c.expectations.length) {
    lines.push('', '| expectation | cells | found | result |', '|---|---|---|---|');
    for (const e of c.expectations) {
      lines.push(`| ${mdCell(`${e.anomaly} share ${e.share} where ${Object.entries(e.where).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('|') : String(v)}`).join(', ') || 'every cell'}`)} | ${e.cells.length} | ${e.appeared}/${e.known}${e.unknown ? ` (+${e.unknown} unknown)` : ''} | ${e.status} |`);
    }
  }
  if (c.verdict.reasons.length) lines.push('', ...c.verdict.reasons.map((r) => `- ${mdCell(r)}`));
  return lines.join('\n') + '\n';
}
