import { Option, type Command } from 'commander';
import { scenarioCatalogue } from '../catalogue.ts';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EXIT, InputError } from '../../errors.ts';
import { parse } from 'yaml';
import { buildCells, setPath } from '../../matrix/cells.ts';
import { checkExpectationScopes } from '../../matrix/expect.ts';
import { readMatrixFile } from '../../matrix/file.ts';
import { matrixExitCode } from '../../matrix/compare.ts';
import { writeComparison } from '../../matrix/output.ts';
import { makePlan, readPlan, writePlan, type MatrixPlan } from '../../matrix/plan.ts';
import { runMatrix } from '../../matrix/run-matrix.ts';
import { loadBroker } from '../../broker/registry.ts';
import { reportAfterRun } from '../../report/render.ts';
import { newRunId } from '../../runner/run-id.ts';
import { runOnce } from '../../runner/run-and-analyze.ts';
import { onInterrupt } from '../../runtime/cleanup.ts';
import { SuiteBrokers } from '../../suite/brokers.ts';
import { comparisonMarkdown } from '../../matrix/table.ts';
import { CONNECTION_HELP, EXTERNAL_HELP, collect } from '../external.ts';
import { externalSource } from '../connection.ts';
import { checkRuntime } from '../runtime-flag.ts';
import type { SuiteFlags } from './suite.ts';
import { documentHead, JSON_HELP, withJsonStdout, type JsonStdout } from '../json-output.ts';
import type { ExitCode } from '../../errors.ts';

/** The suite's flags (a matrix keeps brokers up as a suite does), and its own. */
interface MatrixFlags extends Omit<SuiteFlags, 'out'> {
  resume?: string;
  compare?: string;
  dryRun?: boolean;
  repeat?: string;
  /** The older name of --repeat. */
  repeats?: string;
  set?: string[];
}

const HELP = `
A matrix file names a base scenario and what to vary:

  name: kafka-client-x-concurrency
  scenario: ../nightly/kafka-unordered-pool.yaml   # or the scenario itself, embedded
  vary:                                    # paths into the scenario, with their values
    broker.client: [kafkajs, confluent]
    consumers.concurrency.mode: [partition, key, unordered]
  linked:                                  # settings that change together: one axis
    producer:
      idempotent: { broker.producer.idempotent: true, broker.producer.maxInFlight: 5 }
      plain: { broker.producer.idempotent: false, broker.producer.maxInFlight: 5 }
  overrides:                               # per cell: kafkajs takes 1 in flight with idempotence
    - { when: { broker.client: kafkajs, producer: idempotent }, set: { broker.producer.maxInFlight: 1 } }
  exclude: [{ broker.client: confluent, consumers.concurrency.mode: key }]   # cells not to run
  repeats: 5                               # runs per cell
  seed: 1                                  # run order and the runs' workload seeds
  expect:                                  # across cells: the exit code follows
    - { where: { consumers.concurrency.mode: unordered }, anomaly: reorder, share: ">=0.9" }
    - { where: { consumers.concurrency.mode: [partition, key] }, anomaly: reorder, share: 0 }

Every cell is checked before anything starts (a bad path or value names its cell; exit 2).
Runs go repeat by repeat, each round in a seeded order; repeat r of every cell uses the same
workload seed. Output: <results>/matrix-<name>-<time>/ with plan.json, runs/<run-id>/ (normal
run folders), matrix.json (results/schema/matrix.v1.json), matrix.html and matrix.md.
Exit code: 0 every expectation across cells held (and no run failed its own), 1 one failed,
2 bad input, 3 a run or an expectation was unknown, or the matrix was interrupted.
`;

/** Checks the matrix file and builds its plan (nothing starts); `convoy validate` checks a matrix file with it too. */
export async function planFor(file: string, o: MatrixFlags, runtime: ReturnType<typeof checkRuntime>, log: (line: string) => void): Promise<MatrixPlan> {
  const matrix = readMatrixFile(resolve(file));
  const repeat = o.repeat ?? o.repeats;
  if (repeat !== undefined) {
    const n = Number(repeat);
    if (!Number.isInteger(n) || n < 1) throw new InputError(`--repeat: expected an integer >= 1, got "${repeat}"`);
    matrix.repeats = n;
  }
  for (const s of o.set ?? []) {
    const m = /^([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)=(.*)$/.exec(s);
    if (!m) throw new InputError(`--set: expected path=value (e.g. workload.durationMs=3s), got "${s}"`);
    setPath(matrix.scenario, m[1], parse(m[2]));
    (matrix.flagSets ??= {})[m[1]] = m[2];
  }
  const allowDestructive = Boolean(o.allowDestructive);
  const { cells, warnings } = await buildCells(matrix, { catalogue: await scenarioCatalogue(), target: { runtime, allowDestructive } });
  for (const w of warnings) log(`convoy: warning: ${file}: ${w}`);
  checkExpectationScopes(matrix.file, matrix.expect, cells);
  return makePlan(matrix, cells);
}

export function register(program: Command): void {
  program
    .command('matrix')
    .description('run a scenario over a matrix of settings (cells x repeats) and compare the cells: anomaly shares with intervals, merged latency, expectations across cells')
    .argument('[file]', 'matrix YAML file (see workloads/matrix/)')
    .option('--results <dir>', 'parent folder for the matrix folder', 'results')
    .option('--resume <dir>', 'continue an interrupted matrix (its folder) with the same plan; runs cut short go again')
    .option('--compare <dir>', 'rewrite the comparison of a matrix folder from its runs\' results, without running anything')
    .option('--dry-run', 'check every cell and print the plan; run nothing')
    .option('--repeat <n>', 'runs per cell, instead of the file\'s repeats (a quick smoke: --repeat 1); the same name as run\'s --repeat')
    .addOption(new Option('--repeats <n>', 'the older name of --repeat').hideHelp())
    .option('--set <path=value>', 'change the base scenario before the axes apply, one change per flag (repeat it), e.g. --set workload.durationMs=3s (value in YAML)', collect)
    .option('--runtime <kind>', 'where brokers come from: local, containers, external', 'local')
    .option('--external <k=v>', EXTERNAL_HELP, collect)
    .option('--connection <file|name>', CONNECTION_HELP)
    .option('--allow-destructive', 'allow faults that change or hurt an external broker')
    .option('--keep', 'keep each run\'s topics, queues and groups')
    .option('--no-reuse-brokers', 'local runtime: let every run start and stop its own brokers')
    .option('--quiet', 'no progress output from the runs')
    .option('--json', `print one JSON document on stdout: the verdict, exit code, matrix folder and the comparison (matrix.json: the cells' table as data); with --dry-run, the plan; ${JSON_HELP}`)
    .addHelpText('after', HELP)
    .action((file: string | undefined, o: MatrixFlags) => withJsonStdout(o.json, (json) => matrixCommand(file, o, json)));
}

async function matrixCommand(file: string | undefined, o: MatrixFlags, json: JsonStdout | undefined): Promise<void> {
  const runtime = checkRuntime(o.runtime);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const given = [file, o.resume, o.compare].filter(Boolean).length;
  if (given !== 1) throw new InputError('convoy matrix: give a matrix file, or --resume <matrix folder>, or --compare <matrix folder> (one of them)');
  if (o.compare) {
    const dir = resolve(o.compare);
    finish(readPlan(dir), dir, false, json);
    return;
  }
  let dir: string;
  let plan: MatrixPlan;
  if (o.resume) {
    dir = resolve(o.resume);
    plan = readPlan(dir);
  } else {
    plan = await planFor(file!, o, runtime, log);
    if (o.dryRun) {
      process.stdout.write(`ok ${file}: ${plan.cells.length} cells x ${plan.repeats} repeats = ${plan.runs.length} runs\n`);
      for (const c of plan.cells) process.stdout.write(`  cell ${c.label}\n`);
      process.stdout.write(`order: ${plan.runs.map((r) => `${r.cell}#${r.repeat + 1}`).join(' ')}\n`);
      json?.write({
        command: 'matrix', dryRun: true, exitCode: EXIT.ok, name: plan.name, file: plan.file,
        cells: plan.cells.map((c) => ({ id: c.id, label: c.label, values: c.values })), repeats: plan.repeats,
        runs: plan.runs.map((r) => ({ slot: r.slot, cell: r.cell, repeat: r.repeat + 1, seed: r.seed })),
      });
      return;
    }
    dir = join(resolve(o.results), newRunId(`matrix-${plan.name}`));
    mkdirSync(dir, { recursive: true });
    writePlan(dir, plan);
  }
  log(`matrix ${plan.name}: ${plan.cells.length} cells x ${plan.repeats} repeats = ${plan.runs.length} runs in ${dir}`);
  const external = externalSource(runtime, o);
  // Checked before the first run: bad connection settings (the broker kind's, each cell's client's) are bad input, not a broken run.
  for (const c of plan.cells) await external?.(c.scenario.broker.kind, c.scenario.broker);
  const brokers = runtime === 'local' && o.reuseBrokers ? new SuiteBrokers(log, true) : undefined;
  let stopped = false;
  const offInterrupt = onInterrupt(() => {
    stopped = true;
  });
  try {
    await runMatrix(plan, { dir, runtime, allowDestructive: Boolean(o.allowDestructive), keep: Boolean(o.keep), quiet: Boolean(o.quiet) }, {
      run: async (scenario, opts) => runOnce(scenario, { ...opts, external: await external?.(scenario.broker.kind) }), report: reportAfterRun, log,
      // A test double lives inside the runner: there is nothing to keep up between runs.
      prepare: brokers ? async (s) => ((await loadBroker(s.broker.kind)).testDouble ? undefined : brokers.prepare(s)) : undefined,
      finish: brokers ? () => brokers.stopAll() : undefined,
      stopped: () => stopped,
    });
  } finally {
    offInterrupt();
  }
  if (stopped) log(`interrupted: continue with convoy matrix --resume ${dir}`);
  finish(plan, dir, stopped, json);
}

/** Writes the comparison and prints it; an interrupted matrix exits 3 whatever its cells showed. */
function finish(plan: MatrixPlan, dir: string, interrupted: boolean, json: JsonStdout | undefined): void {
  const { comparison, files } = writeComparison(plan, dir);
  process.stdout.write(`\n${comparisonMarkdown(comparison)}\n${files.join('\n')}\n`);
  const code: ExitCode = interrupted ? EXIT.infrastructure : matrixExitCode(comparison);
  // matrix.json as written (results/schema/matrix.v1.json): the cells' table as data.
  json?.write({ ...documentHead('matrix', code), name: plan.name, dir, interrupted, files, comparison });
  process.exitCode = code;
}
