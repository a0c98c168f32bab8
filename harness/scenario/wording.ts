/**
 * Error wording: ajv's errors as one line each, `<path>: expected ..., got ...`, with "did you
 * mean" for a typo'd property and one message per value for unions (not one per branch).
 */
import type { ErrorObject } from 'ajv';
import { DURATION_COMMENT, EXPECT_VALUE_COMMENT, EXPECTATION_COMMENT, EXPECTATION_LIST_COMMENT, NAME_PATTERN } from '../spec/sections.ts';
import { STRATEGY_COMMENT } from '../consumer/strategies/schema.ts';
import { dedupe, deref, escapePointer, isObject, plain, show, unescapePointer, valueAt, type SchemaObject } from './values.ts';

/** ajv errors as `<path>: expected ..., got ...` lines. `root` resolves $refs in descriptions. */
export function formatErrors(errors: ErrorObject[], data: unknown, base: string, root: SchemaObject): string[] {
  const out: string[] = [];
  const ptr = (instancePath: string) => instancePath;
  // Expectation values: one message per value instead of one per branch of the oneOf.
  const expectationPaths = new Set(
    errors.filter((e) => e.keyword === 'oneOf' && (e.parentSchema as SchemaObject | undefined)?.$comment === EXPECTATION_COMMENT).map((e) => e.instancePath),
  );
  // One expectation or a list: report against the branch the value took, not both.
  const listPaths = new Set(
    errors.filter((e) => e.keyword === 'anyOf' && (e.parentSchema as SchemaObject | undefined)?.$comment === EXPECTATION_LIST_COMMENT).map((e) => e.instancePath),
  );
  errors = errors.filter((e) => {
    if (!listPaths.has(e.instancePath)) return true;
    if (e.keyword === 'anyOf') return false;
    const isList = Array.isArray(valueAt(data, e.instancePath));
    const fromListBranch = (e.parentSchema as SchemaObject | undefined)?.type === 'array';
    return isList === fromListBranch;
  });
  // A strategy is a name or { kind, ...options }: report the errors of the form given.
  const strategyPaths = new Set(
    errors.filter((e) => e.keyword === 'anyOf' && (e.parentSchema as SchemaObject | undefined)?.$comment === STRATEGY_COMMENT).map((e) => e.instancePath),
  );
  errors = errors.filter((e) => {
    if (!strategyPaths.has(e.instancePath)) return true;
    if (e.keyword === 'anyOf') return false;
    return isObject(valueAt(data, e.instancePath)) ? (e.parentSchema as SchemaObject | undefined)?.type === 'object' : e.keyword === 'enum';
  });
  // Unknown properties that look like a missing one: report the typo, not the absence.
  const suggested = new Set<string>();
  for (const e of errors) {
    if (e.keyword !== 'additionalProperties') continue;
    const s = suggest(e.params.additionalProperty as string, knownProperties(e.parentSchema, root));
    if (s) suggested.add(`${e.instancePath}/${s}`);
  }
  const valuePaths = new Set<string>();
  for (const e of errors) {
    if ((e as ErrorObject & { propertyName?: string }).propertyName !== undefined) continue; // inner errors of propertyNames
    const value = valueAt(data, e.instancePath);
    const path = dotted(data, e.instancePath, base);
    const parent = (e.parentSchema ?? {}) as SchemaObject;
    if (expectationPaths.has(ptr(e.instancePath))) {
      if (isObject(value)) {
        if (e.keyword === 'oneOf' || e.keyword === 'enum') continue; // the object branch's own errors say it
      } else {
        if (e.keyword !== 'oneOf') continue;
        out.push(`${path}: expected 0, ">0", "any", a bound such as "<5", or { expect, during | before | after | outside }, got ${show(value)}`);
        continue;
      }
    }
    if (parent.$comment === EXPECT_VALUE_COMMENT) {
      // A mapping took the { expect, ... } branch: that branch's own errors say what is wrong.
      if (!isObject(value) && !valuePaths.has(path)) out.push(`${path}: expected 0, ">0", "any" or a bound on the count such as "<5" or "<=3", got ${show(value)}`);
      valuePaths.add(path);
      continue;
    }
    switch (e.keyword) {
      case 'type':
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
      case 'multipleOf':
      case 'pattern':
      case 'maxLength':
      case 'const':
        out.push(`${path}: expected ${describe(parent, root)}, got ${show(value)}`);
        break;
      case 'minLength':
        out.push(`${path}: expected ${(e.params.limit as number) === 1 ? 'a non-empty string' : describe(parent, root)}, got ${show(value)}`);
        break;
      case 'enum':
        out.push(`${path}: expected one of ${[...new Set((e.params.allowedValues as unknown[]).map(plain))].join(', ')}; got ${show(value)}`);
        break;
      case 'discriminator': {
        const kinds = discriminatorKinds(parent, root);
        const tag = e.params.tag as string;
        const tagPath = dotted(data, `${e.instancePath}/${tag}`, base);
        const got = isObject(value) ? value[tag] : undefined;
        out.push(got === undefined ? `${tagPath}: missing; expected one of ${kinds.join(', ')}` : `${tagPath}: expected one of ${kinds.join(', ')}; got ${show(got)}`);
        break;
      }
      case 'additionalProperties': {
        const prop = e.params.additionalProperty as string;
        const known = knownProperties(parent, root);
        const s = suggest(prop, known);
        const at = dotted(data, `${e.instancePath}/${escapePointer(prop)}`, base);
        if (s) out.push(`${at}: unknown property (did you mean ${s}?)`);
        else out.push(`${at}: unknown property; expected ${known.length ? `one of ${known.join(', ')}` : 'none'}`);
        break;
      }
      case 'required': {
        const prop = e.params.missingProperty as string;
        if (suggested.has(`${e.instancePath}/${prop}`)) break;
        // A `then: { required }` has no properties of its own: at the top they are the root's.
        const owner = isObject(parent.properties) ? parent : e.instancePath === '' ? root : parent;
        const sub = isObject(owner.properties) ? (owner.properties as Record<string, SchemaObject>)[prop] : undefined;
        const at = dotted(data, `${e.instancePath}/${escapePointer(prop)}`, base);
        out.push(`${at}: missing; expected ${sub ? describe(sub, root) : 'a value'}`);
        break;
      }
      case 'minItems':
      case 'maxItems': {
        const n = e.params.limit as number;
        const len = Array.isArray(value) ? value.length : 0;
        out.push(`${path}: expected ${e.keyword === 'minItems' ? 'at least' : 'at most'} ${n} ${n === 1 ? 'item' : 'items'}, got ${len}`);
        break;
      }
      case 'propertyNames': {
        const name = e.params.propertyName as string;
        const pattern = (parent.propertyNames as SchemaObject | undefined)?.pattern;
        out.push(`${dotted(data, `${e.instancePath}/${escapePointer(name)}`, base)}: unexpected name; expected ${pattern === '^c[1-9][0-9]*$' ? 'a consumer name: c1, c2, ...' : `a name matching ${String(pattern)}`}`);
        break;
      }
      case 'if':
        break; // its `then` errors say what is missing
      case 'oneOf':
      case 'anyOf':
        if (!errors.some((o) => o !== e && o.instancePath.startsWith(e.instancePath) && o.keyword !== e.keyword)) {
          out.push(`${path}: expected ${describe(parent, root)}, got ${show(value)}`);
        }
        break;
      default:
        out.push(`${path}: ${e.message ?? 'invalid'}`);
    }
  }
  return dedupe(out);
}


/** What a schema accepts, in words: `integer ≥ 1`, `one of a, b`, `a duration (...)`. */
export function describe(schemaIn: unknown, root: SchemaObject): string {
  const s = deref(schemaIn, root);
  if (s.$comment === DURATION_COMMENT) return 'a duration (milliseconds, or a string like "30s", "250ms", "2m")';
  if (s.$comment === EXPECTATION_COMMENT) return '0, ">0", "any" or { expect, during | before | after | outside }';
  if (Array.isArray(s.enum)) return `one of ${[...new Set(s.enum.map(plain))].join(', ')}`;
  if ('const' in s) return JSON.stringify(s.const);
  if (isObject(s.discriminator) && Array.isArray(s.oneOf)) return `a mapping with kind: one of ${discriminatorKinds(s, root).join(', ')}`;
  const type = s.type;
  if (type === 'integer' || type === 'number') {
    const lo = s.minimum !== undefined ? { v: s.minimum, inc: true } : s.exclusiveMinimum !== undefined ? { v: s.exclusiveMinimum, inc: false } : undefined;
    const hi = s.maximum !== undefined ? { v: s.maximum, inc: true } : s.exclusiveMaximum !== undefined ? { v: s.exclusiveMaximum, inc: false } : undefined;
    const bigHi = hi && typeof hi.v === 'number' && hi.v >= 1e6;
    if (lo && hi && lo.inc && hi.inc && !bigHi) return `${type} between ${lo.v} and ${hi.v}`;
    const parts: string[] = [];
    if (lo) parts.push(`${lo.inc ? '≥' : '>'} ${lo.v}`);
    if (hi) parts.push(`${hi.inc ? '≤' : '<'} ${hi.v}`);
    return parts.length ? `${type} ${parts.join(' and ')}` : type;
  }
  if (type === 'string') {
    if (s.pattern === NAME_PATTERN) return 'a name (letters, digits, ".", "_", "-"; starting with a letter or digit)';
    if (s.pattern) return `a string matching ${String(s.pattern)}`;
    return s.minLength === 1 ? 'a non-empty string' : 'a string';
  }
  if (type === 'boolean') return 'true or false';
  if (type === 'object') return 'a mapping';
  if (type === 'array') return s.minItems ? `a list of at least ${String(s.minItems)}` : 'a list';
  if (Array.isArray(type)) return `one of the types ${type.join(', ')}`;
  return typeof s.description === 'string' ? s.description : 'a valid value';
}

function discriminatorKinds(schema: SchemaObject, root: SchemaObject): string[] {
  const branches = Array.isArray(schema.oneOf) ? schema.oneOf : [];
  return branches.map((b) => String((deref(b, root).properties as Record<string, SchemaObject> | undefined)?.kind?.const));
}

function knownProperties(schema: unknown, root: SchemaObject): string[] {
  const s = deref(schema, root);
  return isObject(s.properties) ? Object.keys(s.properties) : [];
}

import { suggest } from '../suggest.ts';
export { suggest };

/** "/workload/producers/0/name" → "workload.producers[0].name" (under `base`). */
function dotted(data: unknown, pointer: string, base: string): string {
  let out = base;
  let cur = data;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = unescapePointer(raw);
    if (Array.isArray(cur)) out += `[${seg}]`;
    else out += out ? `.${seg}` : seg;
    cur = isObject(cur) || Array.isArray(cur) ? (cur as any)[seg] : undefined;
  }
  return out || '(top level)';
}

