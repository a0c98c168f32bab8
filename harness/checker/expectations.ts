/**
 * Expectations: what a scenario expects of each anomaly type (`0`, `>0`, `any`, or a bound on
 * the count such as `<5` or `<=3`), optionally
 * only within, outside or before a fault's window, and the verdict they give.
 *
 * Forms accepted:
 *   string      "lost=0,reorder=>0,duplicate=any,gap@stall-c1=>0,gap@outside:stall-c1=0"
 *   structured  { reorder: '>0', lost: 0, gap: { during: 'stall-c1', expect: '>0' } }
 *               (a type may also map to an array of such entries)
 * Types not mentioned keep their default: lost, abandoned, reorder, gap, overlap, split,
 * phantom and ghost are expected 0; the rest are informational (`any`).
 *
 * `unseen` (acked, not delivered, while the broker still held messages or could not be asked)
 * is informational by default, but it bears on `lost`: an expectation of `lost: 0` that holds
 * while unseen messages are in its scope cannot be a pass, since they may be lost or on their
 * way. The verdict is then `unknown` ("the drain ended with N messages still on the broker"),
 * never `fail`. A scenario that gives its own `unseen` expectation is judged by it alone.
 */
import { InputError } from '../errors.ts';
import { holds, parseCountBound } from './comparison.ts';
import { unitSuffix } from './thresholds.ts';
import { faultStart, faultUntil, inFault } from './faults.ts';
import type { Occurrences } from './occurrences.ts';
import { DEFAULT_EXPECTED_ZERO, WINDOW_RELATIONS, type WindowRelation } from './anomaly-types.ts';
import { ANOMALY_TYPES, isAnomalyType, type Anomalies, type AnomalyType, type BrokerRemaining, type FaultWindow, type InputStats } from './types.ts';

/** '0', '>0', 'any', or a count bound as written ("<5", "<=3"; comparison.ts). */
export type Expected = '0' | '>0' | 'any' | (string & {});
export type Relation = WindowRelation;

export interface WindowScope {
  relation: Relation;
  /** A fault name, as in the history's fault events. */
  fault: string;
}

export interface Expectation {
  type: AnomalyType;
  expect: Expected;
  /** null or absent: the whole run. */
  window?: WindowScope | null;
  source?: 'default' | 'given';
}

export interface ExpectationResult {
  type: AnomalyType;
  expected: Expected;
  window: WindowScope | null;
  /** Occurrences in scope; null when the scope could not be evaluated. */
  found: number | null;
  keys: number | null;
  /** null: could not be decided (its fault never occurred). */
  held: boolean | null;
  source: 'default' | 'given';
}

export type VerdictStatus = 'pass' | 'fail' | 'unknown';

export interface Verdict {
  status: VerdictStatus;
  reasons: string[];
}

export { DEFAULT_EXPECTED_ZERO };

const EXPECTED_VALUES: readonly Expected[] = ['0', '>0', 'any'];
const RELATIONS: readonly Relation[] = WINDOW_RELATIONS;

/** The default expectation of every type. */
export function defaultExpectations(): Expectation[] {
  return ANOMALY_TYPES.map((type) => ({
    type,
    expect: DEFAULT_EXPECTED_ZERO.includes(type) ? '0' : 'any',
    window: null,
    source: 'default',
  }));
}

/** Parses the string form (the --expect flag). */
export function parseExpectSpec(spec: string): Expectation[] {
  const out: Expectation[] = [];
  for (const raw of spec.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    // "reorder=>0": the name ends at the first '=', the value may start with '>'.
    const eq = item.indexOf('=');
    if (eq < 0) throw new InputError(`expectation "${item}": expected <type>[@[during|outside|before|after:]<fault>]=0|>0|any|<N|<=N`);
    let name = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    let window: WindowScope | null = null;
    const at = name.indexOf('@');
    if (at >= 0) {
      const scope = name.slice(at + 1).trim();
      name = name.slice(0, at).trim();
      const colon = scope.indexOf(':');
      const relation = colon >= 0 ? scope.slice(0, colon).trim() : 'during';
      const fault = colon >= 0 ? scope.slice(colon + 1).trim() : scope;
      window = scopeOf(item, relation, fault);
    }
    out.push({ type: typeOf(item, name), expect: expectedOf(item, value), window, source: 'given' });
  }
  return out;
}

/** Parses either form; also accepts a list of Expectation records. */
export function parseExpectations(input: unknown): Expectation[] {
  if (input === undefined || input === null) return [];
  if (typeof input === 'string') return parseExpectSpec(input);
  if (Array.isArray(input)) return input.flatMap((e, i) => entry(`expectations[${i}]`, (e as { type?: unknown })?.type, e));
  if (typeof input !== 'object') throw new InputError(`expectations: expected a string or an object, got ${typeof input}`);
  const out: Expectation[] = [];
  for (const [type, value] of Object.entries(input as Record<string, unknown>)) {
    const values = Array.isArray(value) ? value : [value];
    values.forEach((v) => out.push(...entry(`expectations.${type}`, type, v)));
  }
  return out;
}

function entry(where: string, type: unknown, value: unknown): Expectation[] {
  if (typeof type !== 'string') throw new InputError(`${where}: missing anomaly type`);
  const t = typeOf(where, type);
  if (typeof value === 'string' || typeof value === 'number') return [{ type: t, expect: expectedOf(where, String(value)), window: null, source: 'given' }];
  if (typeof value !== 'object' || value === null) throw new InputError(`${where}: expected 0, ">0", "any", a bound such as "<5", or { expect, during }`);
  const v = value as Record<string, unknown>;
  const allowed = new Set(['type', 'expect', ...RELATIONS]);
  for (const k of Object.keys(v)) {
    if (!allowed.has(k)) throw new InputError(`${where}: unknown field "${k}" (expected expect, during, outside, before or after)`);
  }
  if (v.expect === undefined) throw new InputError(`${where}: missing "expect"`);
  const scoped = RELATIONS.filter((r) => v[r] !== undefined);
  if (scoped.length > 1) throw new InputError(`${where}: give only one of during, outside, before, after`);
  let window: WindowScope | null = null;
  if (scoped.length === 1) window = scopeOf(where, scoped[0], v[scoped[0]]);
  return [{ type: t, expect: expectedOf(where, String(v.expect)), window, source: 'given' }];
}

function typeOf(where: string, name: string): AnomalyType {
  if (!isAnomalyType(name)) throw new InputError(`${where}: unknown anomaly type "${name}" (known: ${ANOMALY_TYPES.join(', ')})`);
  return name;
}

function expectedOf(where: string, value: string): Expected {
  const v = value.trim();
  if ((EXPECTED_VALUES as readonly string[]).includes(v)) return v as Expected;
  if (parseCountBound(v)) return v.replace(/\s+/g, '');
  throw new InputError(`${where}: expected value must be 0, >0, any or a bound on the count (<5, <=3, >=1), got "${value}"`);
}

function scopeOf(where: string, relation: unknown, fault: unknown): WindowScope {
  if (typeof relation !== 'string' || !(RELATIONS as readonly string[]).includes(relation))
    throw new InputError(`${where}: window must be during, outside, before or after a fault, got "${String(relation)}"`);
  if (typeof fault !== 'string' || fault.trim() === '') throw new InputError(`${where}: missing fault name`);
  return { relation: relation as Relation, fault: fault.trim() };
}

/** The given expectations, plus the default for every type none of them mentions. */
export function withDefaults(given: readonly Expectation[]): Expectation[] {
  const mentioned = new Set(given.map((e) => e.type));
  const all = [...given.map((e) => ({ ...e, window: e.window ?? null, source: e.source ?? 'given' })), ...defaultExpectations().filter((d) => !mentioned.has(d.type))];
  const rank = (t: AnomalyType) => ANOMALY_TYPES.indexOf(t);
  // Stable: given expectations of one type keep their order.
  return all.map((e, i) => ({ e, i })).sort((a, b) => rank(a.e.type) - rank(b.e.type) || a.i - b.i).map((x) => x.e);
}

export interface Judged {
  anomalies: Anomalies;
  occurrences: Occurrences;
  faults: readonly FaultWindow[];
  input?: Pick<InputStats, 'badLines'>;
  /** The history's `remaining` event, for the wording of unseen reasons. */
  remaining?: BrokerRemaining | null;
  /** Uncertain anomalies (times on different hosts closer than their clocks are known), for scoped expectations. */
  uncertain?: Occurrences;
}

export interface EvaluateOptions {
  /** Reasons the run or the check did not complete (the verdict can then not be pass). */
  incomplete?: string[];
}

/** Evaluates expectations (given ones plus defaults) against a check outcome. */
export function evaluateExpectations(
  judged: Judged,
  given: readonly Expectation[] = [],
  options: EvaluateOptions = {},
): { expectations: ExpectationResult[]; verdict: Verdict } {
  const results = withDefaults(given).map((e) => evaluateOne(judged, e));
  const failures: string[] = [];
  const unknowns: string[] = [...(options.incomplete ?? [])];
  const bad = judged.input?.badLines ?? 0;
  if (bad > 0) unknowns.push(`${bad} unusable history line${bad === 1 ? '' : 's'} skipped`);
  for (const r of results) {
    if (r.held === false) failures.push(`${label(r)}: expected ${r.expected}, found ${r.found} (${plural(r.keys ?? 0, 'key')})`);
    if (r.held === null) unknowns.push(`${label(r)}: fault "${r.window?.fault}" never occurred in the history`);
  }
  const unseenGiven = given.some((e) => e.type === 'unseen');
  if (!unseenGiven) {
    for (const r of results) {
      if (r.type !== 'lost' || r.expected !== '0' || r.held !== true) continue;
      const unseen = evaluateOne(judged, { type: 'unseen', expect: 'any', window: r.window });
      if (!unseen.found) continue;
      const rem = judged.remaining;
      const held = !rem || !rem.known ? 'and the broker could not be asked what it still held' : `still on the broker (it held ${rem.total})`;
      unknowns.push(`${label(r)}: the drain ended with ${plural(unseen.found, 'acked message')} undelivered ${held}: unseen, not lost (${plural(unseen.keys ?? 0, 'key')})`);
    }
  }
  // An expectation of 0 that holds only because its anomalies were uncertain is no pass: each
  // may be a real one that the hosts' clocks cannot order.
  for (const r of results) {
    if (r.expected !== '0' || r.held !== true) continue;
    const u = uncertainIn(judged, r);
    if (u.count > 0) unknowns.push(`${label(r)}: expected 0, found 0 certain and ${u.count} uncertain (${plural(u.keys, 'key')}): times on different hosts closer than their clocks are known`);
  }
  // As in Jepsen, a definite failure outranks an unknown; unknown is never a pass.
  const status: VerdictStatus = failures.length > 0 ? 'fail' : unknowns.length > 0 ? 'unknown' : 'pass';
  return { expectations: results, verdict: { status, reasons: [...failures, ...unknowns] } };
}

function evaluateOne(judged: Judged, e: Expectation): ExpectationResult {
  const window = e.window ?? null;
  let found: number | null;
  let keys: number | null;
  if (!window) {
    found = judged.anomalies[e.type].count;
    keys = judged.anomalies[e.type].keys;
  } else if (!judged.faults.some((f) => f.name === window.fault)) {
    found = null;
    keys = null;
  } else {
    const keep = scopeFilter(judged.faults, window);
    ({ count: found, keys } = judged.occurrences.tally(e.type, keep));
  }
  let held: boolean | null;
  if (e.expect === 'any') held = true;
  else if (found === null) held = null;
  else held = countHolds(e.expect, found);
  return { type: e.type, expected: e.expect, window, found, keys, held, source: e.source ?? 'given' };
}

/** A type's uncertain anomalies in an expectation's scope. */
function uncertainIn(judged: Judged, r: ExpectationResult): { count: number; keys: number } {
  const whole = judged.anomalies[r.type].uncertain;
  if (!whole) return { count: 0, keys: 0 };
  if (!r.window) return { count: whole.count, keys: whole.keys };
  if (!judged.uncertain) return { count: whole.count, keys: whole.keys };
  return judged.uncertain.tally(r.type, scopeFilter(judged.faults, r.window));
}

/** Whether a count keeps an expected value ('0', '>0' or a bound; 'any' always holds). */
export function countHolds(expected: Expected, found: number): boolean {
  if (expected === 'any') return true;
  if (expected === '0') return found === 0;
  if (expected === '>0') return found > 0;
  const bound = parseCountBound(expected);
  if (!bound) throw new RangeError(`not an expected value: ${expected}`);
  return holds(bound, found);
}

function scopeFilter(faults: readonly FaultWindow[], w: WindowScope): (t: number) => boolean {
  if (w.relation === 'during') return (t) => inFault(faults, w.fault, t);
  if (w.relation === 'outside') return (t) => !inFault(faults, w.fault, t);
  if (w.relation === 'before') {
    const first = faultStart(faults, w.fault) as number;
    return (t) => t < first;
  }
  const last = faultUntil(faults, w.fault) as number;
  return (t) => t > last;
}

export function label(r: { type: string; window: WindowScope | null; scope?: string }): string {
  if (r.scope !== undefined) return `${r.type} ${r.scope}`;
  return r.window ? `${r.type} ${r.window.relation} ${r.window.fault}` : r.type;
}

/** "expected <5, found 7 (3 keys)", or for a threshold "expected <200ms, found 350 ms". */
export function outcomeText(r: { expected: string; found: number | null; keys: number | null; unit?: string }): string {
  if (r.unit !== undefined) {
    return r.found === null ? `expected ${r.expected}, nothing measured` : `expected ${r.expected}, found ${r.found}${unitSuffix(r.unit)}`;
  }
  return `expected ${r.expected}, found ${r.found} (${plural(r.keys ?? 0, 'key')})`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
