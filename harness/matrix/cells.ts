/**
 * The cells of a matrix: every combination of the axes' values, less the excluded ones, each
 * the base scenario with its values (and any matching overrides) set at their paths. Every
 * cell's scenario goes through the scenario loader before anything starts; a problem is
 * named with the cell that would have had it (exit 2).
 */
import { stringify } from 'yaml';
import { InputError } from '../errors.ts';
import { ScenarioError, parseScenario, type LoadOptions } from '../scenario/load.ts';
import type { Scenario } from '../spec/types.ts';
import type { Assignment, MatrixFile } from './file.ts';
import { pathOfProblem, positionOf, type Origin } from '../scenario/yaml-source.ts';

export interface Cell {
  /** Position in the matrix's cell order (axes in file order, values in list order). */
  index: number;
  /** Short, file-name-safe: `kafkajs.unordered`. */
  id: string;
  /** For people: `client=kafkajs, mode=unordered`. */
  label: string;
  /** Axis -> value (a linked axis: its value's name). */
  values: Assignment;
  /** The resolved scenario (its seed is replaced per run). */
  scenario: Scenario;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** True when every axis in `where` has the cell's value (or one of a listed set). */
export function matches(values: Assignment, where: Assignment): boolean {
  return Object.entries(where).every(([axis, want]) => (Array.isArray(want) && !Array.isArray(values[axis]) ? want.some((w) => same(w, values[axis])) : same(want, values[axis])));
}

/** Every combination of axis values, first axis slowest. */
function combinations(file: MatrixFile): Assignment[] {
  let out: Assignment[] = [{}];
  for (const axis of file.axes) out = out.flatMap((c) => axis.values.map((v) => ({ ...c, [axis.name]: v })));
  return out;
}

/** Sets `value` at a dotted path, creating mappings on the way. */
export function setPath(doc: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let at = doc;
  for (const p of parts.slice(0, -1)) {
    const next = at[p];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) at[p] = {};
    at = at[p] as Record<string, unknown>;
  }
  at[parts[parts.length - 1]] = structuredClone(value);
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Short axis names (the last path segment) unless two axes would share one. */
function shortNames(file: MatrixFile): Map<string, string> {
  const last = file.axes.map((a) => a.name.split('.').pop()!);
  return new Map(file.axes.map((a, i) => [a.name, last.filter((l) => l === last[i]).length > 1 ? a.name : last[i]]));
}

/** The scenario document of a cell: the base, then the axes' values, then matching overrides. */
export function cellDocument(file: MatrixFile, values: Assignment, id: string): Record<string, unknown> {
  const doc = structuredClone(file.scenario);
  for (const axis of file.axes) {
    const v = values[axis.name];
    if (axis.linked) for (const [path, x] of Object.entries(axis.linked[String(v)])) setPath(doc, path, x);
    else setPath(doc, axis.name, v);
  }
  for (const o of file.overrides) if (matches(values, o.when)) for (const [path, x] of Object.entries(o.set)) setPath(doc, path, x);
  doc.name = `${file.name}.${id}`.slice(0, 100);
  return doc;
}

/**
 * The matrix's cells, each checked by the scenario loader. Throws one InputError listing every
 * problem of every cell, each line starting with the cell's label.
 */
export async function buildCells(file: MatrixFile, options: Omit<LoadOptions, 'file'>): Promise<{ cells: Cell[]; warnings: string[] }> {
  const short = shortNames(file);
  const kept = combinations(file).filter((values) => !file.exclude.some((x) => matches(values, x)));
  if (kept.length === 0) throw new InputError(`${file.file}: every cell is excluded`);
  // Problem -> the cells that have it: a mistake in the base or an axis value is said once.
  const problems = new Map<string, string[]>();
  const warnings = new Set<string>();
  const cells: Cell[] = [];
  for (const [index, values] of kept.entries()) {
    const id = Object.values(values).map((v) => text(v).replace(/[^A-Za-z0-9_-]+/g, '-')).join('.');
    const label = Object.entries(values).map(([axis, v]) => `${short.get(axis)}=${text(v)}`).join(', ');
    try {
      const { scenario, warnings: w } = await parseScenario(stringify(cellDocument(file, values, id)), { ...options, file: `cell ${label}` });
      for (const x of w) warnings.add(x);
      cells.push({ index, id, label, values, scenario });
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      // A cell has no file of its own: its problems go by path, said where the value came from.
      const located = err instanceof ScenarioError ? err.errors : err.detail;
      const lines = located.length ? located : [err.message];
      for (const line of lines.map((l) => l.replace(/^cell [^:]*: /, ''))) {
        const path = pathOfProblem(line);
        const from = path === undefined ? undefined : sourceOf(file, values, path);
        const key = from ? `${from}: ${line}` : line;
        problems.set(key, [...(problems.get(key) ?? []), label]);
      }
    }
  }
  if (problems.size) {
    const lines = [...problems].map(([problem, labels]) => {
      const which = labels.length === kept.length && kept.length > 1 ? 'every cell' : labels.length === 1 ? `cell ${labels[0]}` : `cells ${labels.join('; ')}`;
      // `file:line:col: <path>: ...` keeps its position first; the cells follow it.
      const at = /^(\S+:\d+:\d+|--set \S+): /.exec(problem);
      return at ? `${at[1]}: ${which}: ${problem.slice(at[0].length)}` : `${which}: ${problem}`;
    });
    throw new InputError(`${file.file}: ${lines.length} ${lines.length === 1 ? 'problem' : 'problems'} in the matrix's cells`, lines);
  }
  return { cells, warnings: [...warnings] };
}

/** Whether setting `set` bears on the value at `path`: the same path, one inside it, or one around it. */
function bears(set: string, path: string): boolean {
  const p = path.replace(/\[(\d+)\]/g, '.$1');
  return p === set || p.startsWith(`${set}.`) || set.startsWith(`${p}.`);
}

/**
 * Where the value at `path` of a cell's scenario came from, as cellDocument builds it (the base,
 * then the axes, then the overrides; the last that set it wins): `file:line:col` in the matrix
 * file or the base scenario's, or the `--set` flag; undefined when nothing says.
 */
export function sourceOf(file: MatrixFile, values: Assignment, path: string): string | undefined {
  const at = (origin: Origin | undefined, p: string) => {
    if (!origin) return undefined;
    const pos = positionOf(origin, p);
    return `${pos.file}:${pos.line}:${pos.col}`;
  };
  let from = Object.keys(file.flagSets ?? {}).filter((set) => bears(set, path)).map((set) => `--set ${set}=${file.flagSets![set]}`).pop() ?? at(file.scenarioOrigin, path);
  for (const axis of file.axes) {
    const v = values[axis.name];
    if (axis.linked) {
      for (const set of Object.keys(axis.linked[String(v)] ?? {})) if (bears(set, path)) from = at(file.origin, `linked.${axis.name}.${String(v)}.${set}`) ?? from;
    } else if (bears(axis.name, path)) {
      from = at(file.origin, `vary.${axis.name}[${axis.values.findIndex((x) => same(x, v))}]`) ?? from;
    }
  }
  file.overrides.forEach((o, i) => {
    if (!matches(values, o.when)) return;
    for (const set of Object.keys(o.set)) if (bears(set, path)) from = at(file.origin, `overrides[${i}].set.${set}`) ?? from;
  });
  return from;
}
