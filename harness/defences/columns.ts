/**
 * The defences table's columns and rows. A column is one scenario file in the suite folder
 * (workloads/defences/): one fault shape that breaks order. Its rows are DISCOVERED: every
 * strategy in the catalogue (harness/consumer/strategies/, plus CONVOY_STRATEGY_DIRS) that fits
 * the column's entity, each run live as the consumers' own strategy; then every concurrency
 * mode that declares itself a defence (harness/consumer/concurrency/modes/, `defence`), run as
 * the consumers' mode beside the column's own strategy. A strategy or mode added to its folder
 * joins the table with no edit here. Each column becomes a matrix (harness/matrix/) with one
 * linked axis, `defence`, whose value per row sets `consumers.strategy` or
 * `consumers.concurrency.mode`, so runs, seeds, resume and broker reuse are the matrix's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { InputError } from '../errors.ts';
import { loadScenario, type LoadOptions } from '../scenario/load.ts';
import { loadStrategies } from '../consumer/strategies/registry.ts';
import { CONCURRENCY_MODES } from '../consumer/concurrency/registry.ts';
import type { ConcurrencyMode } from '../consumer/concurrency/contract.ts';
import type { ConsumerStrategy } from '../consumer/strategies/contract.ts';
import type { Assignment, MatrixFile } from '../matrix/file.ts';

/** The matrix axis of a column: one value per row (older defences runs used STRATEGY_AXIS). */
export const DEFENCE_AXIS = 'defence';
export const STRATEGY_AXIS = 'consumers.strategy';
export const MODE_PATH = 'consumers.concurrency.mode';

/** A row of the table: a consumer strategy, or a concurrency mode that is a defence. */
export type Row = { kind: 'strategy'; name: string; strategy: ConsumerStrategy } | { kind: 'mode'; name: string; defence: string };

/** Every row, strategies (catalogue order) then defence modes (by name). */
export async function discoverRows(modes: readonly ConcurrencyMode[] = CONCURRENCY_MODES): Promise<Row[]> {
  const rows: Row[] = [...(await loadStrategies())].map(([name, strategy]) => ({ kind: 'strategy' as const, name, strategy }));
  for (const m of modes) {
    if (!m.defence) continue;
    if (rows.some((r) => r.name === m.name)) throw new InputError(`concurrency mode ${m.name}: a strategy has the same name; a defences row needs a name of its own`);
    rows.push({ kind: 'mode', name: m.name, defence: m.defence });
  }
  return rows;
}

/** What a row sets in the column's scenario. */
export function rowAssignment(row: Row): Assignment {
  return row.kind === 'strategy' ? { [STRATEGY_AXIS]: row.name } : { [MODE_PATH]: row.name };
}

export interface Column {
  /** The scenario's name. */
  name: string;
  file: string;
  description: string;
  broker: string;
  entity: { kind: string; events: string };
  faults: string[];
  /** Fitting rows (strategies, catalogue order, then defence modes): the rows this column runs. */
  rows: string[];
  /** Rows that do not fit, with why. */
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

/** Each column with its rows: the strategies that fit its entity, and every defence mode. */
export async function discoverColumns(files: string[], options: Omit<LoadOptions, 'file'>, all?: Row[]): Promise<Column[]> {
  const candidates = all ?? (await discoverRows());
  const out: Column[] = [];
  for (const file of files) {
    const { scenario } = await loadScenario(file, options);
    const rows: string[] = [];
    const unfit: Record<string, string> = {};
    for (const row of candidates) {
      // A mode runs beside the column's own strategy, on any entity (its cost shows in the cell).
      const why = row.kind === 'strategy' ? row.strategy.unfit?.(scenario.workload.entity) : undefined;
      if (why) unfit[row.name] = why;
      else rows.push(row.name);
    }
    out.push({
      name: scenario.name, file, description: scenario.description ?? '', broker: scenario.broker.kind,
      entity: { kind: scenario.workload.entity.kind, events: scenario.workload.entity.events },
      faults: scenario.faults.map((f) => f.kind), rows, unfit,
    });
  }
  return out;
}

/** The column as a matrix file: its scenario, one linked axis over its rows (`only`: those of them), `repeats` runs per row. */
export function columnMatrix(column: Column, rows: Row[], repeats: number, seed: number, only?: string[]): MatrixFile {
  const data = parse(readFileSync(column.file, 'utf8')) as Record<string, unknown>;
  if ('extends' in data) throw new InputError(`${column.file}: extends: a defences column is one self-contained scenario (its cells are built from this file alone)`);
  const names = column.rows.filter((r) => !only || only.includes(r));
  const linked = Object.fromEntries(rows.filter((r) => names.includes(r.name)).map((r) => [r.name, rowAssignment(r)]));
  return {
    file: column.file, name: `defences-${basename(column.file).replace(/\.ya?ml$/i, '')}`, description: column.description,
    scenarioFile: column.file, scenario: data, axes: [{ name: DEFENCE_AXIS, values: names, linked }],
    repeats, seed, exclude: [], overrides: [], expect: [],
  };
}

/** Where a column's matrix folder goes inside a defences run folder. */
export function columnDir(runDir: string, column: Pick<Column, 'file'>): string {
  return join(runDir, basename(column.file).replace(/\.ya?ml$/i, ''));
}
