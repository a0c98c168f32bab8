import { EXIT, type ExitCode } from '../errors.ts';
import type { RuntimeKind } from '../broker/contract.ts';
import type { Scenario } from '../spec/types.ts';
import { analyzeRun, type Result } from './analyze.ts';
import { executeRun } from './run.ts';
import { readScenarioSource, type ScenarioSource } from '../scenario/source.ts';
import { printSummary } from './summary.ts';
import { scenarioPlacements, type AgentPlacement } from './placement.ts';

export interface RunCommandOptions {
  runtime: RuntimeKind;
  resultsDir: string;
  /** `--results` as the user typed it: the summary shows run folders the same way (absolute stays absolute). */
  resultsAsGiven?: string;
  keep: boolean;
  allowDestructive: boolean;
  external?: Record<string, unknown>;
  repeat: number;
  quiet: boolean;
  /** Adopt a recorded running broker of the same setup (default true); false: deploy its own. */
  reuseBrokers?: boolean;
  /** The scenario file: its text and its parents' are recorded in the result (`source`). */
  scenarioFile?: string;
  /** What to record instead (a rerun passes on what the first run recorded). */
  source?: ScenarioSource;
  /** convoy agents that run the producers or consumers (`--agent`). */
  agents?: AgentPlacement[];
  /** Called after each run's result is written (the report renders HTML here). */
  afterRun?: (result: Result, runDir: string) => Promise<void>;
}

export function exitCodeFor(status: Result['verdict']['status']): ExitCode {
  return status === 'pass' ? EXIT.ok : status === 'fail' ? EXIT.expectationFailed : EXIT.infrastructure;
}

/** One scenario run (or --repeat N runs) and its analysis; returns the exit code. */
export async function runOnce(scenario: Scenario, opts: RunCommandOptions): Promise<{ result: Result; runDir: string; code: ExitCode; interrupted: boolean }> {
  const record = await executeRun(scenario, {
    runtime: opts.runtime, resultsDir: opts.resultsDir, keep: opts.keep, allowDestructive: opts.allowDestructive, external: opts.external,
    log: opts.quiet ? undefined : (l) => process.stderr.write(`  ${l}\n`),
    progress: !opts.quiet,
    reuseBrokers: opts.reuseBrokers,
    // `--agent` replaces the scenario's placement section.
    agents: opts.agents?.length ? opts.agents : scenarioPlacements(scenario.placement),
  });
  // A run that failed, even before its broker came up, is analysed like any other: its
  // result says `unknown`, the stage it stopped at and why, so dashboards show every run.
  const source = opts.source ?? (opts.scenarioFile ? await readScenarioSource(opts.scenarioFile) : undefined);
  const result = await analyzeRun(record, { source });
  if (opts.afterRun) await opts.afterRun(result, record.runDir);
  return { result, runDir: record.runDir, code: exitCodeFor(result.verdict.status), interrupted: !!record.interrupted };
}

/** One run of a repetition: its result (as result.json has it), folder and exit code. */
export type RunOutcome = Awaited<ReturnType<typeof runOnce>>;

/** `runOne`: one run and its analysis (runOnce; a test gives its own). */
export async function runAndAnalyze(scenario: Scenario, opts: RunCommandOptions, runOne = runOnce): Promise<ExitCode> {
  return (await runRepeated(scenario, opts, runOne)).code;
}

/** The runs of `--repeat N` (fewer when interrupted), each summarised, and the worst exit code. */
export async function runRepeated(scenario: Scenario, opts: RunCommandOptions, runOne = runOnce): Promise<{ code: ExitCode; runs: RunOutcome[] }> {
  const runs: RunOutcome[] = [];
  for (let i = 0; i < opts.repeat; i++) {
    if (opts.repeat > 1) process.stderr.write(`run ${i + 1} of ${opts.repeat}\n`);
    const r = await runOne(scenario, opts);
    runs.push(r);
    printSummary(r.result, r.runDir, opts.resultsAsGiven);
    // Ctrl-C ends the repetition too, not just the run it came in.
    if (r.interrupted) {
      if (i + 1 < opts.repeat) process.stderr.write(`interrupted: ${i + 1} of ${opts.repeat} runs done; not starting the rest\n`);
      break;
    }
  }
  if (opts.repeat > 1) printFlakeTable(runs.map((r) => r.result));
  // The worst outcome wins: infrastructure (3) over failed expectation (1) over pass.
  const code = runs.reduce<ExitCode>((worst, r) => (r.code === EXIT.infrastructure || worst === EXIT.infrastructure ? EXIT.infrastructure : Math.max(worst, r.code) as ExitCode), EXIT.ok);
  return { code, runs };
}

/** One expectation's record over repeated runs: how often it held. */
export interface FlakeRow {
  label: string;
  held: number;
  of: number;
}

/**
 * How often each expectation held over repeated runs, one row per expectation: a wrong-state
 * expectation is labelled with the strategy it judges, so two of them (the consumers' own and a
 * replayed one) are counted apart.
 */
export function flakeRows(results: Pick<Result, 'expectations'>[]): FlakeRow[] {
  const rows = new Map<string, FlakeRow>();
  for (const r of results) {
    for (const e of r.expectations ?? []) {
      if (e.source === 'default' && e.expected === 'any') continue;
      const label = `${e.type}${e.strategy ? ` (${e.strategy})` : ''}${e.window ? ` ${e.window.relation} ${e.window.fault}` : ''} ${e.expected}`;
      const row = rows.get(label) ?? { label, held: 0, of: 0 };
      row.of++;
      if (e.held === true) row.held++;
      rows.set(label, row);
    }
  }
  return [...rows.values()];
}

/** How often each expectation held over repeated runs: the scenario's flake rate. */
function printFlakeTable(results: Result[]): void {
  const verdicts = results.map((r) => r.verdict.status);
  process.stdout.write(`\n${results.length} runs: ${verdicts.filter((v) => v === 'pass').length} pass, ${verdicts.filter((v) => v === 'fail').length} fail, ${verdicts.filter((v) => v === 'unknown').length} unknown\n`);
  for (const r of flakeRows(results)) process.stdout.write(`  ${r.label.padEnd(40)} held ${r.held}/${r.of}${r.held < r.of ? `  (flake rate ${((1 - r.held / r.of) * 100).toFixed(0)}%)` : ''}\n`);
}
