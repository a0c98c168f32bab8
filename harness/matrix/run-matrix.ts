/**
 * Runs a matrix's plan: each planned run in order, a normal run folder under <matrix>/runs/,
 * one line per finished run in runs.jsonl. A run cut short (Ctrl-C, or the harness killed) has
 * no line; `--resume` removes its folder and runs it again, and skips every run with a line.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ConvoyError, EXIT, type ExitCode } from '../errors.ts';
import type { RuntimeKind } from '../broker/contract.ts';
import type { Result } from '../runner/analyze.ts';
import type { RunCommandOptions } from '../runner/run-and-analyze.ts';
import type { Scenario } from '../spec/types.ts';
import { runScenario, type MatrixPlan, type PlannedRun } from './plan.ts';

export const RUNS_DIR = 'runs';
export const RUNS_LOG = 'runs.jsonl';

/** One finished run, as runs.jsonl records it. */
export interface DoneRun extends PlannedRun {
  runId: string;
  /** Relative to the matrix folder. */
  dir: string;
  verdict: string;
}

export interface MatrixDeps {
  run(scenario: Scenario, opts: RunCommandOptions): Promise<{ result: Result; runDir: string; code: ExitCode }>;
  report?(result: Result, runDir: string): Promise<void>;
  log(line: string): void;
  /** Before each run (brokers up for it), and once after the last (brokers down). */
  prepare?(scenario: Scenario): Promise<void>;
  finish?(): Promise<void>;
  /** True once the user asked to stop: the run in progress is cut short, no other starts. */
  stopped(): boolean;
}

export interface MatrixRunOptions {
  dir: string;
  runtime: RuntimeKind;
  external?: Record<string, unknown>;
  allowDestructive: boolean;
  keep: boolean;
  quiet: boolean;
}

export function readDone(dir: string): DoneRun[] {
  const file = join(dir, RUNS_LOG);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as DoneRun);
}

/** Removes run folders that no finished run names: runs cut short by an interrupt or a kill. */
function removeCutShort(dir: string, done: DoneRun[], log: (line: string) => void): void {
  const runsDir = join(dir, RUNS_DIR);
  if (!existsSync(runsDir)) return;
  const kept = new Set(done.map((d) => d.runId));
  for (const name of readdirSync(runsDir)) {
    if (kept.has(name)) continue;
    rmSync(join(runsDir, name), { recursive: true, force: true });
    log(`  ${name}: cut short earlier; removed, its run goes again`);
  }
}

/** Runs what is left of the plan. Returns whether every planned run has finished. */
export async function runMatrix(plan: MatrixPlan, opts: MatrixRunOptions, deps: MatrixDeps): Promise<{ complete: boolean }> {
  const done = readDone(opts.dir);
  removeCutShort(opts.dir, done, deps.log);
  const finished = new Set(done.map((d) => d.slot));
  const todo = plan.runs.filter((r) => !finished.has(r.slot));
  if (finished.size > 0) deps.log(`resuming: ${finished.size} of ${plan.runs.length} runs done, ${todo.length} to go`);
  const runsDir = join(opts.dir, RUNS_DIR);
  mkdirSync(runsDir, { recursive: true });
  const labels = new Map(plan.cells.map((c) => [c.id, c.label]));
  const started = Date.now();
  try {
    for (const [i, planned] of todo.entries()) {
      if (deps.stopped()) return { complete: false };
      deps.log(`[${planned.slot + 1}/${plan.runs.length}] ${labels.get(planned.cell)} (repeat ${planned.repeat + 1} of ${plan.repeats}, seed ${planned.seed})`);
      const scenario = runScenario(plan, planned);
      await deps.prepare?.(scenario);
      if (deps.stopped()) return { complete: false };
      const r = await runOne(scenario, planned, opts, deps);
      if (!r || deps.stopped()) {
        deps.log('  cut short: convoy matrix --resume runs it again');
        return { complete: false };
      }
      const line: DoneRun = { ...planned, runId: r.result.runId, dir: relative(opts.dir, r.runDir), verdict: r.result.verdict.status };
      appendFileSync(join(opts.dir, RUNS_LOG), JSON.stringify(line) + '\n');
      deps.log(`  ${r.result.verdict.status}${r.result.verdict.reasons.length ? ` (${r.result.verdict.reasons.join('; ')})` : ''}${eta(started, i + 1, todo.length)}`);
    }
  } finally {
    await deps.finish?.();
  }
  return { complete: true };
}

/** "; about 12 min to go" from the mean time of the runs so far. */
function eta(startedMs: number, done: number, of: number): string {
  if (done >= of) return '';
  const minutes = (((Date.now() - startedMs) / done) * (of - done)) / 60_000;
  return `; about ${minutes < 1 ? 'a minute' : `${Math.round(minutes)} min`} to go`;
}

/** One run; a run that breaks (not even an `unknown` result) stops the matrix with its error. */
async function runOne(scenario: Scenario, planned: PlannedRun, opts: MatrixRunOptions, deps: MatrixDeps): Promise<{ result: Result; runDir: string } | undefined> {
  try {
    return await deps.run(scenario, {
      runtime: opts.runtime, resultsDir: join(opts.dir, RUNS_DIR), keep: opts.keep, allowDestructive: opts.allowDestructive, external: opts.external,
      repeat: 1, quiet: opts.quiet, afterRun: deps.report,
    });
  } catch (err) {
    if (deps.stopped()) return undefined;
    const message = err instanceof Error ? err.message : String(err);
    throw new ConvoyError(`run ${planned.slot + 1} (cell ${planned.cell}, repeat ${planned.repeat + 1}) broke: ${message.split('\n')[0]}; fix it and continue with convoy matrix --resume ${opts.dir}`, err instanceof ConvoyError ? err.exitCode : EXIT.infrastructure, [], { cause: err });
  }
}
