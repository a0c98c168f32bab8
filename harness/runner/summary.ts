import type { ResendFigures } from '../metrics/resends.ts';
import type { MergedCosts } from '../consumer/strategies/costs.ts';
import { isAbsolute, relative } from 'node:path';
import type { Result } from './analyze.ts';
import { unitSuffix } from '../checker/thresholds.ts';

const ms = (us: number | undefined) => (us === undefined ? '-' : us >= 10_000 ? `${(us / 1000).toFixed(0)} ms` : `${(us / 1000).toFixed(2)} ms`);

/** Left-aligned columns, each as wide as its widest cell, two spaces apart (large counts never run together). */
export function alignColumns(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  '));
}

/**
 * A run folder as the user would write it: absolute when `--results` was given absolute, else
 * relative to the working directory (`results/<run-id>`); without what was given, relative
 * when inside the working directory and absolute otherwise (never `../../tmp/...`).
 */
export function shownRunDir(runDir: string, resultsAsGiven?: string): string {
  const rel = relative(process.cwd(), runDir);
  if (resultsAsGiven !== undefined) return isAbsolute(resultsAsGiven) || !rel ? runDir : rel;
  return !rel || rel.startsWith('..') || isAbsolute(rel) ? runDir : rel;
}

/** The human summary of one run, on stdout; `resultsAsGiven`: the `--results` folder as typed. */
export function printSummary(result: Result, runDir: string, resultsAsGiven?: string): void {
  const shown = shownRunDir(runDir, resultsAsGiven);
  const out: string[] = [];
  const v = result.verdict;
  out.push('');
  out.push(`${result.scenario?.name ?? result.runId}: ${v.status.toUpperCase()}   (${shown})`);
  for (const r of v.reasons) out.push(`  - ${r}`);
  const failure = result.harness?.failure;
  if (failure && ['setup', 'deploy', 'provision', 'consumers', 'producers'].includes(failure.stage ?? '')) {
    // Nothing was sent: an expectation table would only say "0 found" of a run that never ran.
    out.push(`  the run could not start (stage ${failure.stage}); details in ${shown}/run.log`);
    process.stdout.write(out.join('\n') + '\n');
    return;
  }
  const rows = [['expectation', 'expected', 'found', 'keys', 'held']];
  for (const e of result.expectations) {
    if (e.source === 'default' && e.expected === 'any' && !e.found) continue;
    const scope = e.scope !== undefined ? ` (${e.scope})` : e.window ? ` ${e.window.relation} ${e.window.fault}` : '';
    const label = `${e.type}${e.strategy ? ` (${e.strategy})` : ''}${scope}`;
    const held = e.held === null ? '?' : e.held ? 'yes' : 'NO';
    rows.push([label, e.expected, e.found === null ? '-' : `${e.found}${unitSuffix(e.unit)}`, String(e.keys ?? '-'), held]);
  }
  for (const line of alignColumns(rows)) out.push(`  ${line}`);
  const w = result.workload ?? {};
  out.push(`  sent ${w.sent ?? 0} messages, ${w.achievedRate ?? 0}/s${w.targetRate ? ` (target ${w.targetRate}/s)` : ''}`);
  const re = (w as { resends?: ResendFigures }).resends;
  if (re) out.push(`  re-sent ${re.resent} (of ${re.messages} messages): written ${re.acked}, refused ${re.refused}, unknown ${re.unknown}, unanswered ${re.unanswered}`);
  const lat = result.latency?.whole ?? {};
  for (const name of ['publish', 'publishDelay', 'endToEnd']) {
    const s = lat[name];
    if (s && s.count) out.push(`  ${name.padEnd(13)} p50 ${ms(s.p50).padEnd(10)} p99 ${ms(s.p99).padEnd(10)} max ${ms(s.max)}`);
  }
  if (w.finalState) {
    const parts = Object.values(w.finalState).map((f) => {
      const fields = Object.keys(f.wrongFields ?? {});
      const own = Object.entries(f.figures ?? {}).map(([name, n]) => `, ${name} ${n}`).join('');
      return `${f.strategy}${f.primary ? '*' : ''} ${f.wrong}/${f.keys} keys wrong${fields.length ? ` (${fields.join(', ')})` : ''}${own}`;
    });
    out.push(`  final state: ${parts.join(', ')}${Object.values(w.finalState)[0]?.unreachable ? ` (${Object.values(w.finalState)[0].unreachable} keys unreachable)` : ''}`);
    for (const f of Object.values(w.finalState)) if (f.costs) out.push(`  costs (${f.strategy}): ${costsLine(f.costs)}`);
  }
  const redelivered = result.consumers?.redeliveries;
  if (redelivered && (redelivered.redelivered || Object.keys(redelivered.neverApplied).length)) {
    const byCount = (m: Record<string, number>) => Object.entries(m).map(([count, n]) => `${n} at ${count}`).join(', ');
    const never = Object.keys(redelivered.neverApplied).length ? `; never applied, by their last delivery count: ${byCount(redelivered.neverApplied)}` : '';
    out.push(`  broker delivery counts: ${redelivered.redelivered} redelivered (${byCount(redelivered.byCount)})${never}`);
  }
  const cpu = result.harness?.cpu;
  if (cpu && cpu.host.samples > 0) {
    const busiest = Object.entries(cpu.workers).sort((a, b) => b[1].meanPercent - a[1].meanPercent)[0];
    out.push(`  harness CPU while sending: host ${cpu.host.meanPercent}% of ${cpu.host.cpus} CPUs${busiest ? `, busiest worker ${busiest[0]} ${busiest[1].meanPercent}% of a core` : ''}`);
  }
  process.stdout.write(out.join('\n') + '\n');
}

/** A strategy's costs in one line: its counts and peaks, then each latency's p50 / p99. */
export function costsLine(c: Omit<MergedCosts, 'latency'> & { latency: Record<string, unknown> }): string {
  const figures = [...Object.entries(c.counts), ...Object.entries(c.peaks)].map(([k, v]) => `${k} ${k.endsWith('Bytes') ? `${(v / 1048576).toFixed(0)} MiB` : v}`);
  for (const [k, l] of Object.entries(c.latency) as [string, { p50: number; p99: number; count: number }][]) if (l.count) figures.push(`${k} p50 ${ms(l.p50)} p99 ${ms(l.p99)}`);
  const held = (c.derived as { peakHeldTotal?: number } | undefined)?.peakHeldTotal;
  if (held !== undefined) figures.push(`peakHeldTotal ${held}`);
  return figures.join(', ');
}
