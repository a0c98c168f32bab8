import type { Command } from 'commander';
import { resolve } from 'node:path';
import { InputError } from '../../errors.ts';
import { loadScenarioFile } from '../../scenario/load.ts';
import { scenarioCatalogue } from '../catalogue.ts';
import { flakeRows, runRepeated, type RunOutcome } from '../../runner/run-and-analyze.ts';
import type { RuntimeKind } from '../../broker/contract.ts';
import { CONNECTION_HELP, EXTERNAL_HELP, collect } from '../external.ts';
import { externalSource } from '../connection.ts';
import { checkRuntime } from '../runtime-flag.ts';
import { reportAfterRun } from '../../report/render.ts';
import { documentHead, JSON_HELP, withJsonStdout } from '../json-output.ts';
import type { ExitCode } from '../../errors.ts';
import { agentPlacements } from '../../runner/placement.ts';

export interface RunFlags {
  runtime: RuntimeKind;
  results: string;
  keep?: boolean;
  allowDestructive?: boolean;
  external?: string[];
  connection?: string;
  repeat: string;
  quiet?: boolean;
  json?: boolean;
  /** false with --no-reuse-brokers: start and stop this run's own brokers. */
  reuseBrokers: boolean;
}

export function addRunOptions(cmd: Command): Command {
  return cmd
    .option('--runtime <kind>', 'where brokers come from: local (start them here), containers (Docker), external (yours)', 'local')
    .option('--results <dir>', 'parent folder for run folders', 'results')
    .option('--keep', 'keep the run\'s topics, queues and groups after the run')
    .option('--allow-destructive', 'allow faults that change or hurt an external broker (partition increases, kills)')
    .option('--external <k=v>', EXTERNAL_HELP, collect)
    .option('--connection <file|name>', CONNECTION_HELP)
    .option('--repeat <n>', 'run it n times and report how often each expectation held', '1')
    .option('--quiet', 'no progress output')
    .option('--json', `print one JSON document on stdout: the verdict, exit code, each run's folder and result.json, and the runs together; ${JSON_HELP}`)
    .option('--no-reuse-brokers', 'local runtime: start and stop brokers of its own, even when `convoy brokers up` or a suite left matching ones running (whose owner may restart or stop them mid-run)');
}

export function register(program: Command): void {
  addRunOptions(
    program
      .command('run')
      .description('run one scenario: start brokers, drive the workload, inject faults, check, write results/<run-id>/')
      .argument('<scenario>', 'scenario YAML file (see workloads/)'),
  )
    .option('--agent <[role=]host:port>', 'run workers on a convoy agent (repeatable); role producers= or consumers= takes only those, else both; "here" takes this host\'s turn; the token comes from CONVOY_AGENT_TOKEN', collect)
    .action((file: string, o: RunFlags & { agent?: string[] }) =>
    withJsonStdout(o.json, async (json) => {
      const runtime = checkRuntime(o.runtime);
      const repeat = Number(o.repeat);
      if (!Number.isInteger(repeat) || repeat < 1) throw new InputError(`--repeat: expected an integer ≥ 1, got "${o.repeat}"`);
      // The same checks as `convoy validate --runtime <kind>`, before anything starts.
      const scenario = await loadScenarioFile(file, { catalogue: await scenarioCatalogue(), target: { runtime, allowDestructive: Boolean(o.allowDestructive) } });
      const external = await externalSource(runtime, o)?.(scenario.broker.kind, scenario.broker);
      const { code, runs } = await runRepeated(scenario, {
        runtime, resultsDir: resolve(o.results), resultsAsGiven: o.results, keep: Boolean(o.keep), allowDestructive: Boolean(o.allowDestructive),
        external, repeat, quiet: Boolean(o.quiet), scenarioFile: resolve(file), reuseBrokers: o.reuseBrokers, agents: agentPlacements(o.agent ?? []),
        afterRun: reportAfterRun,
      });
      json?.write(runDocument(scenario.name, resolve(file), repeat, code, runs));
      process.exitCode = code;
    }),
  );
}


/**
 * `convoy run --json`: the verdict and exit code of the whole (the worst run's), one entry per
 * run (its folder, verdict, exit code and result.json as written), and the runs together: how
 * often each expectation held (`--repeat`'s table, as data).
 */
export function runDocument(scenario: string, file: string, repeat: number, code: ExitCode, runs: RunOutcome[]) {
  const count = (status: string) => runs.filter((r) => r.result.verdict.status === status).length;
  return {
    ...documentHead('run', code),
    scenario,
    file,
    runs: runs.map((r) => ({ runDir: r.runDir, verdict: r.result.verdict.status, exitCode: r.code, interrupted: r.interrupted, result: r.result })),
    aggregate: {
      repeat,
      runs: runs.length,
      pass: count('pass'),
      fail: count('fail'),
      unknown: count('unknown'),
      expectations: flakeRows(runs.map((r) => r.result)).map((row) => ({ ...row, flakeRate: row.of ? 1 - row.held / row.of : 0 })),
    },
  };
}
