/**
 * The defences table's columns and rows. A column is one scenario file in the suite folder
 * (workloads/defences/): one fault shape that breaks order. Its rows are DISCOVERED: every
 * strategy in the catalogue (harness/consumer/strategies/, plus CONVOY_STRATEGY_DIRS) that fits
 * the column's entity, each run live as the consumers' own strategy. A strategy added to the
 * catalogue joins the table with no edit here. Each column becomes a matrix (harness/matrix/)
 * with one axis, `consumers.strategy`, so runs, seeds, resume and broker reuse are the matrix's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { InputError } from '../errors.ts';
import { loadScenario, type LoadOptions } from '../scenario/load.ts';
import { loadStrategies } from '../consumer/strategies/registry.ts';
import type { MatrixFile } from '../matrix/file.ts';

export const STRATEGY_AXIS = 'consumers.strategy';

export interface Column {
  /** The scenario's name. */
  name: string;
  file: string;
  description: string;
  broker: string;
  entity: { kind: string; events: string };
  faults: string[];
  /** Fitting strategies, catalogue order: the rows this column runs. */
  rows: string[];
  /** Strategies that do not fit, with why. */
  unfit: Record<string, string>;
}

/** The column files of a suite folder, sorted by name. */
export function columnFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    throw new InputError(`${dir}: cannot read the defences suite: ${(err as Error).message}`);
  }
  const files = names.filter((n) => /\.ya?ml$/i.test(n)).sort().map((n) => resolve(dir, n));
  if (files.length === 0) throw new InputError(`${dir}: no scenario files (.yaml): a defences suite is a folder of scenarios, one per column`);
  return files;
}

/** Each column with its rows: the strategies that fit its entity. */
export async function discoverColumns(files: string[], options: Omit<LoadOptions, 'file'>): Promise<Column[]> {
  const strategies = await loadStrategies();
  const out: Column[] = [];
  for (const file of files) {
    const { scenario } = await loadScenario(file, options);
    const rows: string[] = [];
    const unfit: Record<string, string> = {};
    for (const [name, s] of strategies) {
      const why = s.unfit?.(scenario.workload.entity);
      if (why) unfit[name] = why;
      else rows.push(name);
    }
    out.push({
      name: scenario.name, file, description: scenario.description ?? '', broker: scenario.broker.kind,
      entity: { kind: scenario.workload.entity.kind, events: scenario.workload.entity.events },
      faults: scenario.faults.map((f) => f.kind), rows, unfit,
    });
  }
  return out;
}

/** The column as a matrix file: its scenario, one axis over its rows, `repeats` runs per row. */
export function columnMatrix(column: Column, repeats: number, seed: number): MatrixFile {
  const data = parse(readFileSync(column.file, 'utf8')) as Record<string, unknown>;
  if ('extends' in data) throw new InputError(`${column.file}: extends: a defences column is one self-contained scenario (its cells are built from this file alone)`);
  return {
    file: column.file, name: `defences-${basename(column.file).replace(/\.ya?ml$/i, '')}`, description: column.description,
    scenarioFile: column.file, scenario: data, axes: [{ name: STRATEGY_AXIS, values: column.rows }],
    repeats, seed, exclude: [], overrides: [], expect: [],
  };
}

/** Where a column's matrix folder goes inside a defences run folder. */
export function columnDir(runDir: string, column: Pick<Column, 'file'>): string {
  return join(runDir, basename(column.file).replace(/\.ya?ml$/i, ''));
}
