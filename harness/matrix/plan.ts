/**
 * A matrix's plan: its cells (resolved scenarios) and its runs, cells x repeats, in a seeded
 * interleaved order: repeat by repeat, every cell once per round in an order drawn from the
 * matrix's seed, so that drift on a noisy machine (another job starting, a warm page cache)
 * does not line up with one cell. Repeat r of every cell runs with the same workload seed
 * (drawn from the matrix seed), so cells differ by their settings, not by their keys.
 * The plan is written once (plan.json in the matrix folder); `--resume` reads it back, so an
 * interrupted matrix continues with the same cells, order and seeds even if the file changed.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../errors.ts';
import type { Scenario } from '../spec/types.ts';
import { Rng } from '../workload/rng.ts';
import type { Cell } from './cells.ts';
import type { Assignment, MatrixExpectation, MatrixFile } from './file.ts';

export const PLAN_FILE = 'plan.json';
export const PLAN_SCHEMA = 'convoy.matrix-plan.v1';

export interface PlannedRun {
  /** Position in the run order. */
  slot: number;
  cell: string;
  repeat: number;
  seed: number;
}

export interface PlannedCell {
  index: number;
  id: string;
  label: string;
  values: Assignment;
  scenario: Scenario;
}

export interface MatrixPlan {
  schema: typeof PLAN_SCHEMA;
  name: string;
  description?: string;
  file: string;
  scenarioFile?: string;
  seed: number;
  repeats: number;
  axes: { name: string; values: unknown[]; linked?: Record<string, Assignment> }[];
  expect: MatrixExpectation[];
  cells: PlannedCell[];
  runs: PlannedRun[];
  created: string;
}

/** The workload seed of repeat r: the same for every cell. */
export function repeatSeed(matrixSeed: number, repeat: number): number {
  return Rng.from(matrixSeed).fork(`repeat-${repeat}`).nextU32() >>> 1;
}

/** Fisher-Yates with the plan's own stream for the round. */
function shuffled<T>(items: T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export function makePlan(file: MatrixFile, cells: Cell[], now = new Date()): MatrixPlan {
  const root = Rng.from(file.seed);
  const runs: PlannedRun[] = [];
  for (let r = 0; r < file.repeats; r++) {
    const seed = repeatSeed(file.seed, r);
    for (const c of shuffled(cells, root.fork(`round-${r}`))) runs.push({ slot: runs.length, cell: c.id, repeat: r, seed });
  }
  return {
    schema: PLAN_SCHEMA, name: file.name, description: file.description, file: file.file, scenarioFile: file.scenarioFile,
    seed: file.seed, repeats: file.repeats, axes: file.axes.map((a) => ({ ...a })), expect: file.expect,
    cells: cells.map(({ index, id, label, values, scenario }) => ({ index, id, label, values, scenario })),
    runs, created: now.toISOString(),
  };
}

/** The scenario of one planned run: its cell's, with the repeat's seed. */
export function runScenario(plan: MatrixPlan, run: PlannedRun): Scenario {
  const cell = plan.cells.find((c) => c.id === run.cell)!;
  return { ...structuredClone(cell.scenario), seed: run.seed };
}

/**
 * The cells' scenarios are kept as resolved, secrets included (a resumed run needs the real
 * settings), so the file is readable by its owner only; nothing published (matrix.json, the
 * runs' results, the dashboard) copies it.
 */
export function writePlan(dir: string, plan: MatrixPlan): void {
  writeFileSync(join(dir, PLAN_FILE), JSON.stringify(plan, null, 2) + '\n', { mode: 0o600 });
}

export function readPlan(dir: string): MatrixPlan {
  const file = join(dir, PLAN_FILE);
  if (!existsSync(file)) throw new InputError(`${dir}: not a matrix folder (no ${PLAN_FILE}); give the folder convoy matrix printed`);
  let plan: MatrixPlan;
  try {
    plan = JSON.parse(readFileSync(file, 'utf8')) as MatrixPlan;
  } catch (err) {
    throw new InputError(`${file}: unreadable plan: ${(err as Error).message}`);
  }
  if (plan.schema !== PLAN_SCHEMA) throw new InputError(`${file}: expected schema ${PLAN_SCHEMA}, got ${JSON.stringify(plan.schema)}`);
  return plan;
}
