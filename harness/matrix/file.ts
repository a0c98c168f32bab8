/**
 * A matrix file: a base scenario (a file next to it, or embedded), the axes to vary as paths
 * into the scenario with their values, linked axes whose named values set several paths
 * together, repeats, `exclude`, per-cell `overrides`, and expectations across cells. This
 * module reads and checks the file's own shape; the cells' scenarios are checked by the
 * scenario loader (cells.ts). Every problem names its path; all are reported at once (exit 2).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import { InputError } from '../errors.ts';
import { locate, parseYamlSource, type Origin } from '../scenario/yaml-source.ts';
import { show } from '../scenario/values.ts';
import { ANOMALY_TYPES } from '../checker/anomaly-types.ts';
import { FINAL_STATE_EXPECTATION } from '../spec/sections.ts';
import { THRESHOLD_NAMES } from '../checker/thresholds.ts';

/**
 * What a cross-cell expectation can count: an anomaly type, a wrong final state, or a
 * threshold (the runs that breached the cell scenario's threshold of that name).
 */
export const MATRIX_EXPECTABLE: readonly string[] = [...ANOMALY_TYPES, FINAL_STATE_EXPECTATION, ...THRESHOLD_NAMES];

/** A path into the scenario (`broker.client`) or a linked axis's name, and the value it takes. */
export type Assignment = Record<string, unknown>;

export interface Axis {
  /** The path into the scenario, or the linked axis's name. */
  name: string;
  /** For a plain axis the values; for a linked axis its value names. */
  values: unknown[];
  /** Linked axes only: value name -> the paths it sets. */
  linked?: Record<string, Assignment>;
}

export interface MatrixExpectation {
  /** Which cells: axis -> value or list of values (every listed axis must match). */
  where: Assignment;
  /** An anomaly type, `wrong-state` (the strategy's final state was wrong), or a threshold's name (breached). */
  anomaly: string;
  /** The share of runs in which it appeared: `>=0.9`, `0`, `<=10%`, `>0`, `1`. */
  share: string;
}

export interface MatrixFile {
  file: string;
  name: string;
  description?: string;
  /** The base scenario's file (absolute) when it is not embedded. */
  scenarioFile?: string;
  /** The base scenario as its YAML data (before defaults). */
  scenario: Record<string, unknown>;
  axes: Axis[];
  repeats: number;
  seed: number;
  exclude: Assignment[];
  overrides: { when: Assignment; set: Assignment }[];
  expect: MatrixExpectation[];
  /** Where each value of the matrix file was written, and of the base scenario (its file, or the embedded one). */
  origin?: Origin;
  scenarioOrigin?: Origin;
  /** Paths `--set` changed in the base scenario (said instead of the base file's line). */
  flagSets?: Record<string, string>;
}

/** The origin of a mapping's entry. */
function childOrigin(origin: Origin, key: string): Origin | undefined {
  return origin.children instanceof Map ? origin.children.get(key) : undefined;
}

const TOP_FIELDS = ['name', 'description', 'scenario', 'vary', 'linked', 'repeats', 'seed', 'exclude', 'overrides', 'expect'];
const SHARE = /^\s*(>=|<=|>|<|=)?\s*([0-9]+(?:\.[0-9]+)?)\s*(%?)\s*$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `>=0.9` -> { op: '>=', value: 0.9 }; `90%` -> { op: '=', value: 0.9 }; undefined if malformed. */
export function parseShare(text: unknown): { op: '>=' | '<=' | '>' | '<' | '='; value: number } | undefined {
  const m = SHARE.exec(String(text));
  if (!m) return undefined;
  const value = Number(m[2]) / (m[3] ? 100 : 1);
  if (value > 1) return undefined;
  return { op: (m[1] ?? '=') as '>=' | '<=' | '>' | '<' | '=', value };
}

/** Reads and checks a matrix file; throws an InputError naming each problem's path. */
export function readMatrixFile(file: string): MatrixFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError(`${file}: cannot read: ${(err as Error).message}`);
  }
  // With positions: every problem is said at its file:line:col, and so is a cell's (cells.ts).
  const { data, origin } = parseYamlSource(text, file);
  const errors: string[] = [];
  for (const k of Object.keys(data)) if (!TOP_FIELDS.includes(k)) errors.push(`${k}: unknown field; a matrix file has ${TOP_FIELDS.join(', ')}`);

  const name = data.name ?? file.replace(/^.*\//, '').replace(/\.ya?ml$/i, '');
  if (typeof name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) errors.push(`name: expected letters, digits, '.', '_' or '-', got ${show(name)}`);

  let scenario: Record<string, unknown> = {};
  let scenarioFile: string | undefined;
  let scenarioOrigin: Origin | undefined;
  if (typeof data.scenario === 'string') {
    scenarioFile = resolve(dirname(file), data.scenario);
    try {
      const base = parse(readFileSync(scenarioFile, 'utf8'), { uniqueKeys: true }) as unknown;
      if (isObject(base)) {
        scenario = base;
        scenarioOrigin = parseYamlSource(readFileSync(scenarioFile, 'utf8'), scenarioFile).origin;
      } else errors.push(`scenario: ${data.scenario}: expected a scenario mapping, got ${show(base)}`);
    } catch (err) {
      errors.push(`scenario: ${data.scenario}: cannot read: ${(err as Error).message.split('\n')[0]}`);
    }
  } else if (isObject(data.scenario)) {
    scenario = data.scenario;
    scenarioOrigin = childOrigin(origin, 'scenario');
  }
  else errors.push(`scenario: expected a scenario file (path relative to the matrix file) or an embedded scenario, got ${show(data.scenario)}`);

  const axes: Axis[] = [];
  if (data.vary !== undefined && !isObject(data.vary)) errors.push(`vary: expected a mapping of scenario paths to lists of values, got ${show(data.vary)}`);
  for (const [path, values] of Object.entries(isObject(data.vary) ? data.vary : {})) {
    if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(path)) errors.push(`vary.${path}: expected a dotted path into the scenario (e.g. broker.client)`);
    else if (!Array.isArray(values) || values.length === 0) errors.push(`vary.${path}: expected a non-empty list of values, got ${show(values)}`);
    else if (new Set(values.map((v) => JSON.stringify(v))).size !== values.length) errors.push(`vary.${path}: a value is listed twice`);
    else axes.push({ name: path, values });
  }
  if (data.linked !== undefined && !isObject(data.linked)) errors.push(`linked: expected a mapping of axis names to named values, got ${show(data.linked)}`);
  for (const [axis, named] of Object.entries(isObject(data.linked) ? data.linked : {})) {
    if (axes.some((a) => a.name === axis)) errors.push(`linked.${axis}: also an axis under vary`);
    else if (!isObject(named) || Object.keys(named).length === 0) errors.push(`linked.${axis}: expected value names, each with the scenario paths it sets, got ${show(named)}`);
    else {
      const bad = Object.entries(named).filter(([, set]) => !isObject(set) || Object.keys(set).length === 0);
      for (const [v, set] of bad) errors.push(`linked.${axis}.${v}: expected a mapping of scenario paths to values, got ${show(set)}`);
      if (bad.length === 0) axes.push({ name: axis, values: Object.keys(named), linked: named as Record<string, Assignment> });
    }
  }
  if (axes.length === 0) errors.push('vary: expected at least one axis (under vary or linked)');

  const repeats = data.repeats ?? 1;
  if (!Number.isInteger(repeats) || (repeats as number) < 1) errors.push(`repeats: expected an integer >= 1, got ${show(repeats)}`);
  const seed = data.seed ?? 1;
  if (!Number.isSafeInteger(seed) || (seed as number) < 0) errors.push(`seed: expected an integer >= 0, got ${show(seed)}`);

  const axisNames = new Set(axes.map((a) => a.name));
  const checkMatch = (where: unknown, at: string, allowLists: boolean): Assignment => {
    if (!isObject(where) || Object.keys(where).length === 0) {
      errors.push(`${at}: expected a mapping of axes to values, got ${show(where)}`);
      return {};
    }
    for (const [axis, v] of Object.entries(where)) {
      const a = axes.find((x) => x.name === axis);
      if (!axisNames.has(axis)) errors.push(`${at}.${axis}: not an axis of this matrix (axes: ${[...axisNames].join(', ')})`);
      else for (const one of allowLists && Array.isArray(v) ? v : [v]) {
        if (!a!.values.some((x) => JSON.stringify(x) === JSON.stringify(one))) errors.push(`${at}.${axis}: ${show(one)} is not one of the axis's values (${a!.values.map(show).join(', ')})`);
      }
    }
    return where;
  };
  const list = (key: string): unknown[] => {
    const v = data[key];
    if (v === undefined) return [];
    if (!Array.isArray(v)) {
      errors.push(`${key}: expected a list, got ${show(v)}`);
      return [];
    }
    return v;
  };
  const exclude = list('exclude').map((w, i) => checkMatch(w, `exclude[${i}]`, true));
  const overrides = list('overrides').map((o, i) => {
    if (!isObject(o) || !isObject(o.set) || Object.keys(o).some((k) => k !== 'when' && k !== 'set')) {
      errors.push(`overrides[${i}]: expected { when: { axis: value }, set: { scenario.path: value } }, got ${show(o)}`);
      return { when: {}, set: {} };
    }
    return { when: checkMatch(o.when, `overrides[${i}].when`, true), set: o.set };
  });
  const expect = list('expect').map((e, i) => {
    const at = `expect[${i}]`;
    if (!isObject(e)) {
      errors.push(`${at}: expected { where: { axis: value }, anomaly: <type>, share: ">=0.9" }, got ${show(e)}`);
      return { where: {}, anomaly: '', share: '' };
    }
    for (const k of Object.keys(e)) if (!['where', 'anomaly', 'share'].includes(k)) errors.push(`${at}.${k}: unknown field; an expectation has where, anomaly, share`);
    if (typeof e.anomaly !== 'string' || !MATRIX_EXPECTABLE.includes(e.anomaly)) errors.push(`${at}.anomaly: expected one of ${MATRIX_EXPECTABLE.join(', ')}; got ${show(e.anomaly)}`);
    if (!parseShare(e.share)) errors.push(`${at}.share: expected a share of runs such as ">=0.9", "0", "<=10%", got ${show(e.share)}`);
    return { where: e.where === undefined ? {} : checkMatch(e.where, `${at}.where`, true), anomaly: String(e.anomaly), share: String(e.share) };
  });

  if (errors.length) throw new InputError(`${file}: invalid matrix (${errors.length} ${errors.length === 1 ? 'problem' : 'problems'})`, errors.map((e) => locate(origin, e)));
  return {
    file, name: name as string, description: typeof data.description === 'string' ? data.description : undefined,
    scenarioFile, scenario, axes, repeats: repeats as number, seed: seed as number, exclude, overrides, expect,
    origin, scenarioOrigin,
  };
}
