/**
 * `convoy check <run folder | history.jsonl>`: a run folder is analysed again from its record
 * (its scenario, expectations, settle time and the reasons it may have been incomplete), giving
 * the run's own verdict; a bare history is checked with the given (or default) expectations,
 * which the summary names. Prints a summary (or the result JSON with --json). Exit codes as
 * every command's: 0 every expectation held, 1 one failed, 2 unusable input, 3 unknown (never
 * reported as a pass).
 */
import type { Command } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { EXIT, InputError } from '../../errors.ts';
import { parseDuration } from '../../duration.ts';
import { DEFAULT_SETTLE_MS } from '../../spec/sections.ts';
import { readRunRecord, RECORD_FILE } from '../../runner/record-file.ts';
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
  /** false: every time as stamped, ignoring the history's clock events (--no-clock-correction). */
  correctClocks?: boolean;
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
    .description("check a run folder again (its own scenario and expectations: the run's verdict), or a history file, for per-key ordering anomalies")
    .argument('<run-or-history>', 'a run folder (results/<run-id>) or a history file (JSON Lines)')
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
    .option('--settle <duration>', 'how long a fault window lasts after the fault ends ("5s", "500ms", or ms); default a scenario\'s, 1 s', String(DEFAULT_SETTLE_MS))
    .option('--no-clock-correction', "read every time as stamped, as if the run's hosts shared one clock (what the measured clocks change)")
    .action(async (history: string, opts: { json?: boolean; expect: string[]; lenient?: boolean; settle: string; clockCorrection: boolean }, command: Command) => {
      const folder = runFolderOf(history);
      if (folder !== null && (opts.expect.length > 0 || opts.lenient || command.getOptionValueSource('settle') === 'cli')) {
        throw new InputError(`${history}: a run folder is checked with its own expectations and settle time; to judge it otherwise, check its history: convoy check ${folder}/history.jsonl --expect ...`);
      }
      const correctClocks = opts.clockCorrection;
      const run = folder !== null ? await runCheckFolder(folder, { json: opts.json, correctClocks }) : await runCheck({ history, json: opts.json, expect: opts.expect, lenient: opts.lenient, settleMs: parseSettle(opts.settle), correctClocks });
      // Through commander's output configuration (stdout unless configured otherwise).
      const out = command.configureOutput().writeOut ?? ((s: string) => process.stdout.write(s));
      out(run.output);
      process.exitCode = run.exitCode;
    });
}

/** A duration as everywhere else: "5s", "500ms", or a number of milliseconds. */
export function parseSettle(value: string): number {
  let ms = Number.NaN;
  try {
    ms = value.trim() === '' ? Number.NaN : /^[0-9.]+$/.test(value.trim()) ? Number(value) : parseDuration(value);
  } catch {
    // below
  }
  if (!Number.isFinite(ms) || ms < 0) throw new InputError(`--settle: expected a duration ("5s", "500ms") or a number of milliseconds >= 0, got "${value}"`);
  return ms;
}

/**
 * The run folder `path` names: the folder itself, or the folder of its result.json or
 * record.json (a run's files, not histories); null for anything else (a history file).
 */
export function runFolderOf(path: string): string | null {
  if (!existsSync(path)) return null;
  if (statSync(path).isDirectory()) return path.replace(/\/+$/, '') || '/';
  return ['result.json', RECORD_FILE].includes(basename(path)) ? dirname(path) : null;
}

const exitFor = (status: string) => (status === 'pass' ? EXIT.ok : status === 'fail' ? EXIT.expectationFailed : EXIT.infrastructure);

/** A run folder analysed again from its record: the run's own verdict (tests call this). */
export async function runCheckFolder(dir: string, opts: { json?: boolean; correctClocks?: boolean } = {}): Promise<CheckRun> {
  const record = readRunRecord(dir);
  if (!record) {
    const hint = existsSync(`${dir}/history.jsonl`) ? `; check its history with expectations of your own: convoy check ${dir}/history.jsonl --expect ...` : '';
    throw new InputError(`${dir}: not a run folder convoy can check again (no ${RECORD_FILE}: a run before convoy kept one, or not a run)${hint}`);
  }
  if (!existsSync(record.historyFile)) throw new InputError(`${dir}: the run's history (${basename(record.historyFile)}) is missing`);
  // Loaded when used: the analysis pulls in every broker module.
  const { analyzeRun } = await import('../../runner/analyze.ts');
  const result = (await analyzeRun(record, { write: false, correctClocks: opts.correctClocks })) as unknown as ConvoyResult;
  const head = `convoy check ${dir}: run ${record.runId}, scenario ${record.scenario.name}, with its own expectations and settle time (${record.scenario.run.settleMs} ms)${opts.correctClocks === false ? ', every time as stamped (--no-clock-correction)' : ''}\n`;
  return { result, exitCode: exitFor(result.verdict.status), output: opts.json ? JSON.stringify(result, null, 2) + '\n' : head + formatSummary(result) };
}

/** The whole command without the process around it (tests call this). */
export async function runCheck(opts: CheckOptions): Promise<CheckRun> {
  // Flags first: a typo should not wait for a 10 GB file.
  const given: Expectation[] = (opts.expect ?? []).flatMap((spec) => parseExpectSpec(spec));
  const outcome = await checkFile(opts.history, { lenient: opts.lenient ?? false, settleMs: opts.settleMs, correctClocks: opts.correctClocks });
  const { expectations, verdict } = evaluateExpectations(outcome, given);
  const result = buildResult({
    verdict,
    anomalies: outcome.anomalies,
    expectations,
    check: checkSection(outcome, opts.history),
  });
  const exitCode = exitFor(verdict.status);
  const used = `  expectations: ${given.length ? `${given.map((e) => `${label({ type: e.type, window: e.window ?? null })}=${e.expect}`).join(', ')} (--expect), ` : ''}every other type convoy's default (a run folder is checked with the run's own)\n`;
  const output = opts.json ? JSON.stringify(result, null, 2) + '\n' : formatSummary(result, used);
  return { result, exitCode, output };
}

const EXAMPLES_SHOWN = 3;

/** The human-readable summary: input, anomaly table, examples, verdict. */
export function formatSummary(result: ConvoyResult, expectationsNote = ''): string {
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
    for (const c of check.clocks ?? []) {
      lines.push(`  clock of ${c.host} (${c.workers.join(', ') || 'no workers'}): ${c.offsetUs.first} .. ${c.offsetUs.last} µs off the runner's, ±${c.uncertaintyUs} µs, ${c.corrected ? 'corrected' : 'NOT corrected (--no-clock-correction)'}`);
    }
    if (expectationsNote) lines.push(expectationsNote.trimEnd());
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

  const shown = ANOMALY_TYPES.filter((t) => result.anomalies[t].examples.length > 0 || result.anomalies[t].uncertain);
  if (shown.length > 0) {
    lines.push('', '  examples');
    for (const t of shown) {
      for (const ex of result.anomalies[t].examples.slice(0, EXAMPLES_SHOWN)) lines.push(`  ${t.padEnd(17)} ${who(ex)}: ${ex.note}`);
      const u = result.anomalies[t].uncertain;
      if (u) lines.push(`  ${t.padEnd(17)} and ${count(u.count, 'uncertain one')} (${count(u.keys, 'key')}), not counted: ${u.examples[0]?.note ?? ''}`);
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
