/**
 * Thresholds: expectations on what a run measured rather than on what went wrong in it, as a
 * load test's thresholds fail a run on its p99. Written beside the anomaly expectations, under
 * `expect`:
 *
 *   latency.e2e.p99: "<200ms"               outside every fault window (the default scope)
 *   latency.keyWait.max: { expect: "<2s", during: stall-c1 }
 *   throughput: ">=0.95 of target"          handled per second against the schedule's rate
 *   throughput.sent: { expect: ">=900/s", whole: true }
 *
 * By default a threshold judges the run outside every fault window (and its settle time), so
 * that a fault's planned effect does not read as a regression; `during`, `outside`, `before`
 * or `after` a named fault, or `whole: true`, choose another scope. Figures come from the
 * result's own sections (latency, workload.rates), so a run checked again is judged alike.
 */
import { parseDuration } from '../duration.ts';
import { InputError } from '../errors.ts';
import { holds, splitBound, type Comparison } from './comparison.ts';
import { WINDOW_RELATIONS, type WindowRelation } from './anomaly-types.ts';

/** The latency figures a threshold can name: its name in `expect`, and the result's metric. */
export const LATENCY_METRICS = {
  e2e: { metric: 'endToEnd', text: 'end to end: handling start minus the intended send time' },
  publish: { metric: 'publish', text: 'publish: ack minus send' },
  publishDelay: { metric: 'publishDelay', text: 'publish delay: actual minus intended send time' },
  handler: { metric: 'handler', text: 'handler: handling end minus start' },
  keyWait: { metric: 'keyWait', text: 'per-key head-of-line wait: handling start minus receipt' },
} as const;
export const LATENCY_STATS = ['p50', 'p90', 'p99', 'p999', 'p9999', 'max', 'mean'] as const;
export const THROUGHPUT_MEASURES = {
  throughput: { rate: 'processed', text: 'messages handled per second (outcome ok)' },
  'throughput.sent': { rate: 'sent', text: 'messages sent per second' },
} as const;

type LatencyName = keyof typeof LATENCY_METRICS;
type Stat = (typeof LATENCY_STATS)[number];

/** Every name a threshold may have, in the order the result lists them. */
export const THRESHOLD_NAMES: readonly string[] = [
  ...Object.keys(LATENCY_METRICS).flatMap((m) => LATENCY_STATS.map((s) => `latency.${m}.${s}`)),
  ...Object.keys(THROUGHPUT_MEASURES),
];

export function isThresholdName(name: string): boolean {
  return THRESHOLD_NAMES.includes(name);
}

/** What a threshold name measures, for the schema's descriptions. */
export function thresholdText(name: string): string {
  if (name in THROUGHPUT_MEASURES) {
    return `Throughput, ${THROUGHPUT_MEASURES[name as keyof typeof THROUGHPUT_MEASURES].text}: ">=500/s", ">=0.95 of target" (the schedule's rate in the same scope). Outside fault windows unless { expect, during|outside|before|after: <fault> } or { expect, whole: true }.`;
  }
  const [, m, s] = name.split('.') as [string, LatencyName, Stat];
  return `Latency ${s}, ${LATENCY_METRICS[m].text}: "<200ms", "<=1.5s" (a number is milliseconds). Outside fault windows unless { expect, during|outside|before|after: <fault> } or { expect, whole: true }.`;
}

export type ThresholdScope = { whole: true } | { relation: WindowRelation; fault: string } | null;

export interface Threshold {
  name: string;
  /** As written, e.g. "<200ms". */
  expect: string;
  bound: Comparison;
  /** Throughput only: the bound is a share of the scope's target rate. */
  ofTarget: boolean;
  /** null: outside every fault window. */
  scope: ThresholdScope;
}

/** A threshold's outcome: the shape of an expectation result, with its unit. */
export interface ThresholdResult {
  type: string;
  expected: string;
  window: { relation: WindowRelation; fault: string } | null;
  /** 'outside faults' (the default), 'whole run', or the window's own words. */
  scope: string;
  found: number | null;
  keys: null;
  held: boolean | null;
  source: 'given';
  unit: 'ms' | 'msg/s' | 'of target';
  /** Why it could not be judged (held null). */
  note?: string;
}

/** Parses one threshold as written under `expect` (a value, or { expect, <scope> }). */
export function parseThreshold(where: string, name: string, value: unknown): Threshold {
  let text: unknown = value;
  let scope: ThresholdScope = null;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    const allowed = ['expect', 'whole', ...WINDOW_RELATIONS];
    const unknown = Object.keys(v).filter((k) => !allowed.includes(k));
    if (unknown.length) throw new InputError(`${where}: unknown field "${unknown[0]}" (expected expect, and one of whole: true, ${WINDOW_RELATIONS.join(', ')})`);
    const scoped = WINDOW_RELATIONS.filter((r) => v[r] !== undefined);
    if (scoped.length + (v.whole !== undefined ? 1 : 0) > 1) throw new InputError(`${where}: give one scope: whole: true, or one of ${WINDOW_RELATIONS.join(', ')}`);
    if (v.whole !== undefined && v.whole !== true) throw new InputError(`${where}.whole: expected true (leave it out to judge outside fault windows)`);
    if (v.whole === true) scope = { whole: true };
    if (scoped.length === 1) {
      const fault = v[scoped[0]];
      if (typeof fault !== 'string' || fault.trim() === '') throw new InputError(`${where}.${scoped[0]}: expected a fault name`);
      scope = { relation: scoped[0], fault: fault.trim() };
    }
    text = v.expect;
    if (text === undefined) throw new InputError(`${where}: missing "expect"`);
  }
  if (typeof text !== 'string' && typeof text !== 'number') throw new InputError(`${where}: expected a bound such as ${example(name)}`);
  const written = String(text).trim();
  const b = splitBound(written);
  if (!b) throw new InputError(`${where}: "${written}" has no comparison; write ${example(name)}`);
  if (name in THROUGHPUT_MEASURES) {
    const share = /^([0-9]+(?:\.[0-9]+)?)\s+of\s+target$/.exec(b.rest);
    if (share) return { name, expect: written, bound: { op: b.op, value: Number(share[1]) }, ofTarget: true, scope };
    const rate = /^([0-9]+(?:\.[0-9]+)?)\s*(?:\/s)?$/.exec(b.rest);
    if (rate) return { name, expect: written, bound: { op: b.op, value: Number(rate[1]) }, ofTarget: false, scope };
    throw new InputError(`${where}: "${written}": expected messages per second ("${b.op}500/s") or a share of the target rate ("${b.op}0.95 of target")`);
  }
  let ms: number;
  try {
    ms = parseDuration(/^[0-9]+(\.[0-9]+)?$/.test(b.rest) ? Number(b.rest) : b.rest);
  } catch {
    throw new InputError(`${where}: "${written}": expected a duration after ${b.op}, such as "${b.op}200ms" or "${b.op}1.5s"`);
  }
  return { name, expect: written, bound: { op: b.op, value: ms }, ofTarget: false, scope };
}

function example(name: string): string {
  return name in THROUGHPUT_MEASURES ? '">=0.95 of target" or ">=500/s"' : '"<200ms"';
}

/** The fault names a threshold refers to (for the scenario's cross-checks). */
export function thresholdFault(t: Threshold): string | null {
  return t.scope && 'fault' in t.scope ? t.scope.fault : null;
}

type Summary = Partial<Record<Stat, number>> & { count?: number };
/** Rates in one scope, as the result's `workload.rates` gives them (harness/metrics/rates.ts). */
interface ScopeRates { seconds: number; target: number; sent: number; processed: number }
interface RatesSection {
  whole: ScopeRates;
  outsideFaults: ScopeRates;
  faults: ({ fault: string } & Record<WindowRelation, ScopeRates>)[];
}
export interface ThresholdFigures {
  latency?: {
    whole?: Record<string, Summary>;
    outsideFaults?: Record<string, Summary>;
    phases?: ({ fault: string } & Partial<Record<WindowRelation, Record<string, Summary>>>)[];
  } | null;
  rates?: RatesSection | null;
}

/** Judges one threshold against a run's figures. `found` is in ms, msg/s or a share of target. */
export function evaluateThreshold(t: Threshold, figures: ThresholdFigures): ThresholdResult {
  const window = t.scope && 'fault' in t.scope ? t.scope : null;
  const scope = t.scope === null ? 'outside faults' : 'whole' in t.scope ? 'whole run' : `${t.scope.relation} ${t.scope.fault}`;
  const base = { type: t.name, expected: t.expect, window, scope, keys: null, source: 'given' as const };
  let found: number | null = null;
  let unit: ThresholdResult['unit'] = 'ms';
  if (t.name in THROUGHPUT_MEASURES) {
    unit = t.ofTarget ? 'of target' : 'msg/s';
    const r = pickRates(figures.rates ?? null, t.scope);
    if (r && r.seconds > 0) {
      const rate = r[THROUGHPUT_MEASURES[t.name as keyof typeof THROUGHPUT_MEASURES].rate];
      found = t.ofTarget ? (r.target > 0 ? round(rate / r.target) : null) : rate;
    }
  } else {
    const [, m, s] = t.name.split('.') as [string, LatencyName, Stat];
    const summary = pickLatency(figures.latency ?? null, t.scope)?.[LATENCY_METRICS[m].metric];
    // No sample in the scope: nothing was measured, so the threshold cannot be judged.
    if (summary && (summary.count ?? 0) > 0 && summary[s] !== undefined) found = round(summary[s]! / 1000);
  }
  if (found === null) return { ...base, found, held: null, unit, note: 'nothing was measured in its scope' };
  return { ...base, found, held: holds(t.bound, found), unit };
}

function pickLatency(l: ThresholdFigures['latency'], scope: ThresholdScope): Record<string, Summary> | undefined {
  if (!l) return undefined;
  if (scope === null) return l.outsideFaults;
  if ('whole' in scope) return l.whole;
  return l.phases?.find((p) => p.fault === scope.fault)?.[scope.relation];
}

function pickRates(r: RatesSection | null, scope: ThresholdScope): ScopeRates | undefined {
  if (!r) return undefined;
  if (scope === null) return r.outsideFaults;
  if ('whole' in scope) return r.whole;
  return r.faults.find((f) => f.fault === scope.fault)?.[scope.relation];
}

/** What follows a threshold's figure: " ms", "/s", " of target"; nothing for a count. */
export function unitSuffix(unit: string | undefined): string {
  return unit === 'ms' ? ' ms' : unit === 'msg/s' ? '/s' : unit === 'of target' ? ' of target' : '';
}

/** The verdict line of a threshold that did not hold, or could not be judged. */
export function thresholdReason(r: ThresholdResult): string {
  if (r.held === null) return `${r.type} (${r.scope}): nothing was measured in its scope`;
  return `${r.type} (${r.scope}): expected ${r.expected}, found ${r.found}${unitSuffix(r.unit)}`;
}

const round = (x: number) => Math.round(x * 1000) / 1000;
