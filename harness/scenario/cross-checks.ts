/**
 * Checks across fields, after defaults: what the schema cannot say on its own (hot keys fewer
 * than keys, unique names, expectation windows naming a fault, a producer's broker overrides
 * making valid settings). Each problem is a `<path>: ...` line.
 */
import { InputError } from '../errors.ts';
import type { BrokerSettings } from '../broker/contract.ts';
import { deepMerge } from './deep-merge.ts';
import type { Scenario, TimeDistribution } from '../spec/types.ts';
import { WINDOW_RELATIONS } from '../checker/anomaly-types.ts';
import { isThresholdName, parseThreshold } from '../checker/thresholds.ts';
import { FINAL_STATE_EXPECTATION } from '../spec/sections.ts';
import { isObject, show } from './values.ts';
import type { CatalogueChoice } from './catalogue.ts';
import { strategyOptions } from '../consumer/strategies/registry.ts';

export function crossChecks(s: Scenario, raw: Record<string, any>, warnings: string[], strategies: ReadonlyMap<string, CatalogueChoice>): string[] {
  const errors: string[] = [];
  const w = s.workload;
  if (w.durationMs === undefined && w.messages === undefined) errors.push('workload: expected durationMs or messages (or both), got neither');
  if (w.durationMs !== undefined && !(w.durationMs > 0)) errors.push(`workload.durationMs: expected a duration > 0, got ${show(raw.workload?.durationMs)}`);
  const d = w.keys.distribution;
  if (d.kind === 'hotspot' && d.hotKeys >= w.keys.count) {
    errors.push(`workload.keys.distribution.hotKeys: expected integer < workload.keys.count (${w.keys.count}), got ${d.hotKeys}`);
  }
  if (w.size.kind === 'uniform' && w.size.min > w.size.max) errors.push(`workload.size.max: expected integer ≥ workload.size.min (${w.size.min}), got ${w.size.max}`);
  if (w.size.kind === 'choice' && w.size.weights) {
    if (w.size.weights.length !== w.size.bytes.length) {
      errors.push(`workload.size.weights: expected ${w.size.bytes.length} weights (one per size), got ${w.size.weights.length}`);
    } else if (!(w.size.weights.reduce((a, b) => a + b, 0) > 0)) errors.push('workload.size.weights: expected at least one weight > 0, got none');
  }
  if (w.rate.kind === 'steps' && !w.rate.steps.some((st) => st.perSecond > 0)) {
    errors.push('workload.rate.steps: expected at least one step with perSecond > 0, got none');
  }
  if (w.rate.kind === 'steps') {
    w.rate.steps.forEach((st, i) => {
      if (!(st.forMs > 0)) errors.push(`workload.rate.steps[${i}].forMs: expected a duration > 0, got ${show(raw.workload?.rate?.steps?.[i]?.forMs)}`);
    });
  }
  uniqueNames(w.producers, 'workload.producers', errors);

  const c = s.consumers;
  const handlers: [string, TimeDistribution][] = [['consumers.handler', c.handler]];
  for (const [name, o] of Object.entries(c.overrides ?? {})) {
    const n = Number(name.slice(1));
    if (n > c.processes) {
      const names = Array.from({ length: c.processes }, (_, i) => `c${i + 1}`);
      errors.push(`consumers.overrides.${name}: no such consumer; expected one of ${names.join(', ')} (consumers.processes is ${c.processes})`);
    }
    if (o.handler) handlers.push([`consumers.overrides.${name}.handler`, o.handler]);
  }
  for (const [path, h] of handlers) {
    if (h.kind === 'uniform' && h.minMs > h.maxMs) errors.push(`${path}.maxMs: expected a duration ≥ minMs (${h.minMs}), got ${h.maxMs}`);
  }
  if (c.poison) {
    if (c.poison.share === undefined && c.poison.keys === undefined) errors.push('consumers.poison: expected share or keys (or both), got neither');
    for (const key of c.poison.keys ?? []) {
      const idx = key.startsWith(w.keys.prefix) ? Number(key.slice(w.keys.prefix.length)) : NaN;
      if (!(Number.isInteger(idx) && idx >= 0 && idx < w.keys.count && key === w.keys.prefix + idx)) {
        warnings.push(`consumers.poison.keys: "${key}" is not one of the workload's keys (${w.keys.prefix}0..${w.keys.prefix}${w.keys.count - 1})`);
      }
    }
  }

  strategyChecks(s, strategies, errors);

  uniqueNames(s.faults, 'faults', errors);
  const faultNames = s.faults.map((f) => f.name);
  for (const [type, specs] of Object.entries(s.expect)) {
    for (const spec of Array.isArray(specs) ? specs : [specs]) crossCheckExpectation(type, spec, faultNames, errors);
  }
  return errors;
}

/**
 * The consumers' strategy, and any a wrong-state expectation names, must fit the entity's
 * events (a commutative strategy needs deltas, a state machine a status).
 */
function strategyChecks(s: Scenario, strategies: ReadonlyMap<string, CatalogueChoice>, errors: string[]): void {
  const e = s.workload.entity;
  const events = `workload.entity is ${e.kind} with events: ${e.events}`;
  const fit = (name: string) => strategies.get(name)?.unfit?.(e);
  const fitting = () => [...strategies.keys()].filter((n) => !fit(n)).join(', ');
  const live = strategyOptions(s.consumers.strategy).kind;
  const why = fit(live);
  if (why) errors.push(`consumers.strategy: ${live} ${why}; ${events}, which allows ${fitting()}`);
  const specs = s.expect[FINAL_STATE_EXPECTATION];
  (Array.isArray(specs) ? specs : specs === undefined ? [] : [specs]).forEach((spec, i) => {
    const named = isObject(spec) ? (spec as { strategy?: string }).strategy : undefined;
    const reason = named && fit(named);
    if (reason) errors.push(`expect.${FINAL_STATE_EXPECTATION}${Array.isArray(specs) ? `[${i}]` : ''}.strategy: ${named} ${reason}; ${events}, which allows ${fitting()}`);
  });
}

function crossCheckExpectation(type: string, spec: unknown, faultNames: string[], errors: string[]): void {
  if (isThresholdName(type)) {
    try {
      parseThreshold(`expect.${type}`, type, spec);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      errors.push(e.message);
      return;
    }
  }
  if (!isObject(spec)) return;
  const windows = WINDOW_RELATIONS.filter((k) => (spec as Record<string, unknown>)[k] !== undefined);
  if (windows.length > 1) errors.push(`expect.${type}: expected at most one of ${WINDOW_RELATIONS.join(', ')}, got ${windows.join(' and ')}`);
  for (const k of windows) {
    const ref = (spec as Record<string, unknown>)[k] as string;
    if (type === FINAL_STATE_EXPECTATION) errors.push(`expect.${type}.${k}: the final state has no time; expected no window`);
    else if (!faultNames.includes(ref)) {
      errors.push(`expect.${type}.${k}: expected the name of a fault (${faultNames.length ? faultNames.join(', ') : 'the scenario has none'}), got ${show(ref)}`);
    }
  }
}

function uniqueNames(items: { name: string }[], path: string, errors: string[]): void {
  const first = new Map<string, number>();
  items.forEach((it, i) => {
    const j = first.get(it.name);
    if (j === undefined) first.set(it.name, i);
    else errors.push(`${path}[${i}].name: expected a unique name, got ${show(it.name)} (also ${path}[${j}].name)`);
  });
}

/**
 * A producer's own broker settings (and each of its processes') must make valid broker settings
 * too: each override merged over the resolved settings goes through the module's resolveSettings.
 */
export function producerSettingsProblems(s: Scenario, resolveSettings: (settings: BrokerSettings) => BrokerSettings): string[] {
  const problems: string[] = [];
  s.workload.producers.forEach((p, i) => {
    const base = s.broker as Record<string, unknown>;
    const forProducer = p.broker ? deepMerge(base, p.broker) : base;
    const overrides: [string, Record<string, unknown>][] = p.broker ? [[`workload.producers[${i}].broker`, forProducer]] : [];
    (p.processBroker ?? []).forEach((o, j) => overrides.push([`workload.producers[${i}].processBroker[${j}]`, deepMerge(forProducer, o)]));
    for (const [where, merged] of overrides) {
      try {
        resolveSettings(merged as BrokerSettings);
      } catch (err) {
        const lines = err instanceof InputError && err.detail.length ? err.detail : [(err as Error).message];
        // The module names its settings from `broker.`: here they are the override's (file:line:col of the field).
        problems.push(...lines.map((l) => (/^broker[.[]/.test(l) ? `${where}${l.slice('broker'.length)}` : `${where}: ${l}`)));
      }
    }
  });
  return problems;
}

/** Consumer names a broker setting gives (broker.consumer.staticMembership: [c3]) must be consumers of the run. */
export function consumerNameProblems(s: Scenario, named: { path: string; names: string[] }[]): string[] {
  const all = Array.from({ length: s.consumers.processes }, (_, i) => `c${i + 1}`);
  return named.flatMap(({ path, names }) =>
    names.filter((n) => !all.includes(n)).map((n) => `${path}: no consumer ${show(n)}; expected one of ${all.join(', ')} (consumers.processes is ${s.consumers.processes})`),
  );
}
