/**
 * `convoy suite`: every scenario of a folder in turn, each run's results and report in the
 * output folder, then the dashboard and the CI files for the whole suite. A scenario that
 * does not load, or whose run breaks, is reported and counted; the others still run.
 */
import { mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ConvoyError, EXIT, type ExitCode } from '../errors.ts';
import { debugDetail } from '../verbosity.ts';
import { redactString } from '../checker/redact.ts';
import type { RunCommandOptions } from '../runner/run-and-analyze.ts';
import type { Result } from '../runner/analyze.ts';
import type { Scenario } from '../spec/types.ts';
import type { RuntimeKind } from '../broker/contract.ts';
import { buildDashboard, type DashboardOutput } from '../report/dashboard/build.ts';
import type { SuiteEntry } from '../report/dashboard/junit.ts';
import { loadRuns } from '../report/dashboard/load-runs.ts';
import { scenarioFiles } from './discover.ts';
import { RUN_OVERHEAD_MS, shardOf, type Shard } from './shard.ts';
import { plannedSendingMs } from '../scenario/suite-rules.ts';
import { worstExitCode } from './exit-code.ts';

export interface SuiteDeps {
  load(file: string): Promise<Scenario>;
  run(scenario: Scenario, opts: RunCommandOptions): Promise<{ result: Result; runDir: string; code: ExitCode }>;
  /** Writes the run's report (given to the runner as afterRun). */
  report(result: Result, runDir: string): Promise<void>;
  log(line: string): void;
  /** Before each run (brokers up for it), and once after the last run (brokers down). */
  prepare?(scenario: Scenario): Promise<void>;
  finish?(): Promise<void>;
  /** True once the user asked to stop (Ctrl-C): the remaining scenarios are not run. */
  stopped?(): boolean;
}

export interface SuiteOptions {
  folder: string;
  /** Parent of the run folders (default results/); the dashboard goes to <outDir>/dashboard. */
  outDir: string;
  runtime: RuntimeKind;
  external?: Record<string, unknown>;
  allowDestructive: boolean;
  keep: boolean;
  quiet: boolean;
  /** Run only this share of the scenarios (every shard still loads them all). */
  shard?: Shard;
}

export interface SuiteScenario {
  file: string;
  entry: SuiteEntry;
  code: ExitCode;
  runDir?: string;
}

export interface SuiteOutcome {
  scenarios: SuiteScenario[];
  code: ExitCode;
  dashboard: DashboardOutput;
}

/** The error as the suite's table, dashboard and JUnit XML show it: a client's error may quote its connection, so secrets are hidden. */
function describeError(err: unknown): { message: string; code: ExitCode } {
  if (err instanceof ConvoyError) return { message: redactString([err.message, ...err.detail].join('\n')), code: err.exitCode };
  return { message: redactString(err instanceof Error ? debugDetail(err) : String(err)), code: EXIT.infrastructure };
}

export async function runSuite(opts: SuiteOptions, deps: SuiteDeps): Promise<SuiteOutcome> {
  const files = scenarioFiles(opts.folder);
  const done: SuiteScenario[] = [];
  const loaded: { file: string; scenario: Scenario }[] = [];

  // Load them all first: a typo shows before any broker starts.
  for (const file of files) {
    try {
      loaded.push({ file, scenario: await deps.load(file) });
    } catch (err) {
      const { message, code } = describeError(err);
      deps.log(`${basename(file)}: not run: the scenario did not load\n  ${message.replace(/\n/g, '\n  ')}`);
      done.push({ file, code: code === EXIT.infrastructure ? EXIT.infrastructure : EXIT.badInput, entry: { scenario: basename(file), file, stage: 'load', error: message } });
    }
  }

  // A shard runs its share; every shard loaded every file, but only the first reports those
  // that did not load (one entry each in the dashboard built from all shards' folders).
  const mine = opts.shard ? shardOf(loaded, (l) => (plannedSendingMs(l.scenario) ?? 30_000) + RUN_OVERHEAD_MS, opts.shard) : loaded;
  if (opts.shard) {
    deps.log(`shard ${opts.shard.index}/${opts.shard.count}: ${mine.length} of ${loaded.length} scenarios`);
    if (opts.shard.index > 1) done.length = 0;
  }
  mkdirSync(opts.outDir, { recursive: true });
  try {
    for (const [i, { file, scenario }] of mine.entries()) {
      if (deps.stopped?.()) {
        done.push({ file, code: EXIT.infrastructure, entry: { scenario: scenario.name, file, stage: 'run', error: 'not run: the suite was interrupted' } });
        continue;
      }
      deps.log(`[${i + 1}/${mine.length}] ${scenario.name} (${basename(file)})`);
      try {
        await deps.prepare?.(scenario);
        const r = await deps.run(scenario, {
          runtime: opts.runtime, resultsDir: opts.outDir, keep: opts.keep, allowDestructive: opts.allowDestructive, external: opts.external,
          repeat: 1, quiet: opts.quiet, scenarioFile: file, afterRun: deps.report,
        });
        deps.log(`  ${scenario.name}: ${r.result.verdict.status}${r.result.verdict.reasons.length ? ` (${r.result.verdict.reasons.join('; ')})` : ''}`);
        done.push({ file, code: r.code, runDir: r.runDir, entry: { scenario: scenario.name, file, result: r.result } });
      } catch (err) {
        const { message, code } = describeError(err);
        deps.log(`  ${scenario.name}: broken: ${message.split('\n')[0]}`);
        done.push({ file, code: code === EXIT.ok || code === EXIT.expectationFailed ? EXIT.infrastructure : code, entry: { scenario: scenario.name, file, stage: 'run', error: message } });
      }
    }
  } finally {
    await deps.finish?.();
  }

  // Suite order (the folder's), the dashboard over every run in the output folder (trends).
  const order = new Map(files.map((f, i) => [f, i]));
  done.sort((a, b) => order.get(a.file)! - order.get(b.file)!);
  const { runs, problems } = loadRuns(opts.outDir);
  const dashboard = buildDashboard({ runs, problems, outDir: join(opts.outDir, 'dashboard'), ciEntries: done.map((d) => d.entry) });
  return { scenarios: done, code: worstExitCode(done.map((d) => d.code)), dashboard };
}
