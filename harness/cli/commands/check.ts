/**
 * `convoy check <history.jsonl>`: runs the ordering checker over a history file offline and
 * prints a summary (or the result JSON with --json). Exit 0 when every expectation holds,
 * 1 when one fails, 2 for unusable input or an unknown verdict (never reported as a pass).
 */
import type { Command } from 'commander';
import { EXIT, InputError } from '../../errors.ts';
import { checkFile } from '../../checker/readFile.ts';
import { evaluateExpectations, label, parseExpectSpec, type Expectation } from '../../checker/expectations.ts';
import { buildResult, checkSection, type ConvoyResult } from '../../checker/result.ts';
import { ANOMALY_TYPES, type Example } from '../../checker/types.ts';

export interface CheckOptions {
  history: string;
  json?: boolean;
  /** --expect values (each a comma-separated list). */
  expect?: string[];
  lenient?: boolean;
  settleMs?: number;
}

export interface CheckRun {
  result: ConvoyResult;
  exitCode: number;
  /** What the command prints on stdout. */
  output: string;
}

export function register(program: Command): void {
  program
    .command('check')
    .description('check a history file for per-key ordering anomalies')
    .argument('<history>', 'history file (JSON Lines)')
    .option('--json', 'print the result JSON instead of a summary')
    .option(
      '--expect <spec>',
      'expectations, e.g. lost=0,reorder=>0,duplicate=any,gap@stall-c1=>0 (also @outside:, @before:, @after:); ' +
        'types not named keep their default (lost, abandoned, reorder, gap, overlap, split, phantom, ghost: 0; ' +
        'unseen left out makes lost=0 unknown while messages are still on the broker)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--lenient', 'skip unusable lines and count them (the verdict is then unknown)')
    .option('--settle <ms>', 'how long a fault window lasts after the fault ends, in ms', '5000')
    .action(async (history: string, opts: { json?: boolean; expect: string[]; lenient?: boolean; settle: string }, command: Command) => {
      const run = await runCheck({ history, json: opts.json, expect: opts.expect, lenient: opts.lenient, settleMs: parseSettle(opts.settle) });
      // Through commander's output configuration (stdout unless configured otherwise).
      const out = command.configureOutput().writeOut ?? ((s: string) => process.stdout.write(s));
      out(run.output);
      process.exitCode = run.exitCode;
    });
}

export function parseSettle(value: string): number {
  const ms = Number(value);
  if (value.trim() === '' || !Number.isFinite(ms) || ms < 0) throw new InputError(`--settle: expected a number of milliseconds >= 0, got "${value}"`);
  return ms;
}

/** The whole command without the process around it (tests call this). */
export async function runCheck(opts: CheckOptions): Promise<CheckRun> {
  // Flags first: a typo should not wait for a 10 GB file.
  const given: Expectation[] = (opts.expect ?? []).flatMap((spec) => parseExpectSpec(spec));
  const outcome = await checkFile(opts.history, { lenient: opts.lenient ?? false, settleMs: opts.settleMs });
  const { expectations, verdict } = evaluateExpectations(outcome, given);
  const result = buildResult({
    verdict,
    anomalies: outcome.anomalies,
    expectations,
    check: checkSection(outcome, opts.history),
  });
  const exitCode = verdict.status === 'pass' ? EXIT.ok : verdict.status === 'fail' ? EXIT.expectationFailed : EXIT.badInput;
  const output = opts.json ? JSON.stringify(result, null, 2) + '\n' : formatSummary(result);
  return { result, exitCode, output };
}

const EXAMPLES_SHOWN = 3;

/** The human-readable summary: input, anomaly table, examples, verdict. */
export function formatSummary(result: ConvoyResult): string {
  const lines: string[] = [];
  const check = result.check;
  if (check) {
    const i = check.input;
    lines.push(`convoy check ${check.history ?? ''}`.trimEnd());
    lines.push(
      `  ${count(i.lines, 'line')}, ${count(i.events, 'event')} (${n(i.ignored)} of other types ignored${i.badLines ? `, ${count(i.badLines, 'unusable line')} skipped` : ''}), ` +
        `${count(i.messages, 'message')}, ${count(i.keys, 'key')}, ${count(i.producers, 'producer')}`,
    );
    for (const b of i.badLineSamples.slice(0, 5)) lines.push(`  skipped line ${b.line}: ${b.reason}`);
    for (const f of check.faults) {
      lines.push(`  fault ${f.name}${f.kind ? ` (${f.kind})` : ''}: ${f.start ?? 'beginning'} .. ${f.end ?? 'never ended'}, window until ${f.until ?? 'the end'} (settle ${check.settleMs} ms)`);
    }
    lines.push('');
  }

  const rows = result.expectations.map((e) => [
    label(e),
    e.found === null ? '?' : n(e.found),
    e.keys === null ? '?' : n(e.keys),
    e.expected,
    e.expected === 'any' ? '-' : e.held === null ? '?' : e.held ? 'ok' : 'FAIL',
  ]);
  const header = ['anomaly', 'count', 'keys', 'expected', 'held'];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const fmt = (r: string[]) => '  ' + r.map((cell, c) => (c === 1 || c === 2 ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join('  ').trimEnd();
  lines.push(fmt(header));
  for (const r of rows) lines.push(fmt(r));

  const shown = ANOMALY_TYPES.filter((t) => result.anomalies[t].examples.length > 0);
  if (shown.length > 0) {
    lines.push('', '  examples');
    for (const t of shown) {
      for (const ex of result.anomalies[t].examples.slice(0, EXAMPLES_SHOWN)) lines.push(`  ${t.padEnd(17)} ${who(ex)}: ${ex.note}`);
    }
  }

  lines.push('', `verdict: ${result.verdict.status.toUpperCase()}`);
  for (const r of result.verdict.reasons) lines.push(`  - ${r}`);
  return lines.join('\n') + '\n';
}

function who(ex: Example): string {
  const parts = [`key ${ex.key ?? 'null'}`];
  if (ex.producer !== undefined) parts.push(`producer ${ex.producer ?? 'null'}`);
  if (ex.seq !== undefined) parts.push(`seq ${ex.seq ?? 'null'}`);
  return parts.join(' ');
}

function count(x: number, word: string): string {
  return `${n(x)} ${word}${x === 1 ? '' : 's'}`;
}

function n(x: number): string {
  return x.toLocaleString('en-US');
}
