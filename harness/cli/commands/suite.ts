import { Option, type Command } from 'commander';
import { warningDigest } from '../warning-digest.ts';
import { resolve } from 'node:path';
import { loadScenarioFile } from '../../scenario/load.ts';
import { scenarioCatalogue } from '../catalogue.ts';
import { runOnce } from '../../runner/run-and-analyze.ts';
import { reportAfterRun } from '../../report/render.ts';
import { onInterrupt } from '../../runtime/cleanup.ts';
import { SuiteBrokers } from '../../suite/brokers.ts';
import { runSuite } from '../../suite/run-suite.ts';
import { parseShard } from '../../suite/shard.ts';
import { CONNECTION_HELP, EXTERNAL_HELP, collect } from '../external.ts';
import { externalSource } from '../connection.ts';
import { checkRuntime } from '../runtime-flag.ts';
import { documentHead, JSON_HELP, withJsonStdout, type JsonStdout } from '../json-output.ts';
import type { SuiteOutcome } from '../../suite/run-suite.ts';

export interface SuiteFlags {
  results: string;
  /** The older name of --results, still accepted. */
  out?: string;
  runtime: string;
  external?: string[];
  connection?: string;
  allowDestructive?: boolean;
  keep?: boolean;
  quiet?: boolean;
  json?: boolean;
  reuseBrokers: boolean;
  /** "<i>/<n>": run the i-th of n shares of the scenarios. */
  shard?: string;
}

/**
 * `convoy suite <folder>`: every scenario in the folder in turn, then the dashboard, JUnit XML
 * and benchmark JSON for the suite. Exit code: the worst scenario's (3 a broken run, 2 a
 * scenario that did not load, 1 a failed expectation, 0 all held).
 */
export function register(program: Command): void {
  program
    .command('suite')
    .description('run the scenarios of a folder (those its suite.txt lists, else every *.yaml in it), then write the dashboard, JUnit XML and benchmark JSON for the suite')
    .argument('<folder>', 'folder of scenario YAML files (e.g. workloads/nightly/)')
    .option('--results <dir>', 'parent folder for the run folders; the dashboard goes to <dir>/dashboard', 'results')
    .addOption(new Option('--out <dir>', 'the older name of --results').hideHelp())
    .option('--runtime <kind>', 'where brokers come from: local, containers, external', 'local')
    .option('--external <k=v>', EXTERNAL_HELP, collect)
    .option('--connection <file|name>', CONNECTION_HELP)
    .option('--allow-destructive', 'allow faults that change or hurt an external broker')
    .option('--keep', 'keep each run\'s topics, queues and groups')
    .option('--no-reuse-brokers', 'local runtime: let every run start and stop its own brokers instead of keeping them up across the suite')
    .option('--quiet', 'no progress output from the runs')
    .option('--shard <i/n>', 'run the i-th of n shares of the scenarios, balanced by their planned time (CI jobs side by side; `convoy dashboard` then builds one dashboard from all their run folders)')
    .option('--json', `print one JSON document on stdout: each scenario's verdict, exit code and run folder, the totals and the dashboard's files; ${JSON_HELP}`)
    .action((folder: string, o: SuiteFlags) => withJsonStdout(o.json, (json) => runSuiteCommand(folder, o, json)));
}

/** The suite command's work, also used by `convoy demo`. Sets process.exitCode. */
export async function runSuiteCommand(folder: string, o: SuiteFlags, json?: JsonStdout): Promise<void> {
  const runtime = checkRuntime(o.runtime);
  const shard = o.shard === undefined ? undefined : parseShard(o.shard);
  const external = externalSource(runtime, o);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const warnings = warningDigest((line) => log(`convoy: warning: ${line}`));
  const brokers = runtime === 'local' && o.reuseBrokers ? new SuiteBrokers(log) : undefined;
  let stopped = false;
  const offInterrupt = onInterrupt(() => {
    stopped = true;
  });
  try {
    const outcome = await runSuite(
      { folder: resolve(folder), outDir: resolve(o.out ?? o.results), runtime, allowDestructive: Boolean(o.allowDestructive), keep: Boolean(o.keep), quiet: Boolean(o.quiet), shard },
      {
        load: async (file) => {
          const scenario = await loadScenarioFile(file, { catalogue: await scenarioCatalogue(), target: { runtime, allowDestructive: Boolean(o.allowDestructive) }, onWarning: (w) => warnings.warn(w) });
          // Its connection settings checked with the scenario: bad ones are bad input, before any run.
          await external?.(scenario.broker.kind, scenario.broker);
          return scenario;
        },
        run: async (scenario, opts) => runOnce(scenario, { ...opts, external: await external?.(scenario.broker.kind) }),
        report: reportAfterRun,
        log,
        prepare: brokers ? (s) => brokers.prepare(s) : undefined,
        finish: brokers ? () => brokers.stopAll() : undefined,
        stopped: () => stopped,
      },
    );
    const held = warnings.summary(`convoy validate ${folder}`);
    if (held) log(`convoy: warning: ${held}`);
    const width = Math.max(...outcome.scenarios.map((s) => s.entry.scenario.length), 8);
    process.stdout.write('\nsuite results\n');
    for (const s of outcome.scenarios) {
      process.stdout.write(`  ${s.entry.scenario.padEnd(width)}  ${statusOf(s).padEnd(10)} ${s.runDir ?? s.entry.error?.split('\n')[0] ?? ''}\n`);
    }
    process.stdout.write(`dashboard: ${outcome.dashboard.index}\n${outcome.dashboard.files.filter((f) => !f.endsWith('.html')).join('\n')}\n`);
    json?.write(suiteDocument(resolve(folder), outcome));
    process.exitCode = outcome.code;
  } finally {
    offInterrupt();
  }
}

/** A scenario's line in the suite's table: its verdict, or why it has none. */
function statusOf(s: SuiteOutcome['scenarios'][number]): string {
  return s.entry.result ? s.entry.result.verdict.status : s.entry.stage === 'load' ? 'not loaded' : 'broken';
}

/**
 * `convoy suite --json`: the suite's verdict and exit code (the worst scenario's), one entry per
 * scenario (its verdict or why it has none, exit code, run folder, the verdict's reasons or the
 * error) and the totals; each run's whole result is its folder's result.json.
 */
export function suiteDocument(folder: string, outcome: SuiteOutcome) {
  const scenarios = outcome.scenarios.map((s) => ({
    scenario: s.entry.scenario,
    file: s.file,
    status: statusOf(s),
    exitCode: s.code,
    runDir: s.runDir ?? null,
    reasons: s.entry.result?.verdict.reasons ?? [],
    error: s.entry.error ?? null,
  }));
  const count = (status: string) => scenarios.filter((s) => s.status === status).length;
  return {
    ...documentHead('suite', outcome.code),
    folder,
    scenarios,
    totals: { scenarios: scenarios.length, pass: count('pass'), fail: count('fail'), unknown: count('unknown'), notLoaded: count('not loaded'), broken: count('broken') },
    dashboard: { index: outcome.dashboard.index, files: outcome.dashboard.files },
  };
}
