/**
 * Defaults: every `default` of the scenario schema (or a fault kind's) filled in, durations
 * turned into milliseconds, the name taken from the file, and an expectation for every anomaly
 * type. Defaults live in the schema and nowhere else.
 */
import { basename, extname } from 'node:path';
import type { ExpectationSpec } from '../spec/types.ts';
import { ANOMALIES, ANOMALY_TYPES } from '../checker/anomaly-types.ts';
import { THRESHOLD_NAMES } from '../checker/thresholds.ts';
import { DURATION_COMMENT, FINAL_STATE_EXPECTATION, DUPLICATE_VERSIONS_EXPECTATION } from '../spec/sections.ts';
import { deref, isObject, type SchemaObject } from './values.ts';

import { parseDuration } from '../duration.ts';
export { parseDuration };

/**
 * Fills `default`s of `schema` into `value` (in place, recursively) and turns durations into
 * milliseconds. Discriminated unions follow the branch named by `kind`.
 */
export function fillDefaults(schemaIn: unknown, value: unknown, root: SchemaObject): unknown {
  const s = deref(schemaIn, root);
  if (s.$comment === DURATION_COMMENT) return typeof value === 'string' ? parseDuration(value) : value;
  if (Array.isArray(s.oneOf) && isObject(value)) {
    const branch = isObject(s.discriminator)
      ? s.oneOf.find((b) => (deref(b, root).properties as Record<string, SchemaObject> | undefined)?.kind?.const === value.kind)
      : s.oneOf.find((b) => deref(b, root).type === 'object');
    return branch ? fillDefaults(branch, value, root) : value;
  }
  if (isObject(value)) {
    // Rebuilt in the schema's property order, then any other fields: stable, readable results.
    const props = (isObject(s.properties) ? s.properties : {}) as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [k, sub] of Object.entries(props)) {
      let v = value[k];
      if (v === undefined) {
        const d = defaultOf(sub, root);
        if (d !== undefined) v = structuredClone(d);
      }
      if (v !== undefined) out[k] = fillDefaults(sub, v, root);
    }
    for (const k of Object.keys(value)) {
      if (k in props || value[k] === undefined) continue;
      out[k] = isObject(s.additionalProperties) ? fillDefaults(s.additionalProperties, value[k], root) : value[k];
    }
    return out;
  }
  if (Array.isArray(value) && s.items !== undefined) return value.map((v) => fillDefaults(s.items, v, root));
  return value;
}

function defaultOf(schema: unknown, root: SchemaObject): unknown {
  if (isObject(schema) && 'default' in schema) return schema.default;
  const d = deref(schema, root);
  return 'default' in d ? d.default : undefined;
}

/** The scenario name when it gives none: the file name without its extension. */
export function defaultName(file: string | undefined): string {
  if (!file) return 'scenario';
  const stem = basename(file, extname(file)).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return stem || 'scenario';
}

/** Every anomaly type gets an expectation (thresholds are kept as given): the scenario's, else 0 for the checker's defaults, else any. */
export function resolveExpectations(given: Record<string, ExpectationSpec | ExpectationSpec[]>): Record<string, ExpectationSpec | ExpectationSpec[]> {
  const one = (v: ExpectationSpec): ExpectationSpec => (v === 0 ? '0' : isObject(v) ? ({ ...(v as { expect: unknown }), expect: (v as { expect: unknown }).expect === 0 ? '0' : (v as { expect: unknown }).expect } as ExpectationSpec) : v);
  const out: Record<string, ExpectationSpec | ExpectationSpec[]> = {};
  for (const t of ANOMALY_TYPES) {
    const v = given[t];
    // unseen left out stays out: then it bears on lost (checker/expectations.ts), which an
    // explicit `unseen: any` would switch off.
    if (v === undefined && t === 'unseen') continue;
    if (v === undefined) out[t] = ANOMALIES[t].expectedByDefault;
    else out[t] = Array.isArray(v) ? v.map(one) : one(v);
  }
  // Thresholds only when given: a run has no latency or rate bound by default.
  for (const t of THRESHOLD_NAMES) if (given[t] !== undefined) out[t] = given[t];
  const state = given[FINAL_STATE_EXPECTATION];
  out[FINAL_STATE_EXPECTATION] = state === undefined ? 'any' : Array.isArray(state) ? state.map(one) : one(state);
  // Order-service runs only, and only when given: ordinary scenarios resolve as before.
  const dup = given[DUPLICATE_VERSIONS_EXPECTATION];
  if (dup !== undefined) out[DUPLICATE_VERSIONS_EXPECTATION] = one(dup as ExpectationSpec);
  return out;
}

