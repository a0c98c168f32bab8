/**
 * Loads a scenario: YAML → JSON Schema (ajv, every object closed) → the broker section against
 * the broker module's settingsSchema → each fault against its kind's schema → checks across
 * fields → defaults → the resolved Scenario (types.ts). Every problem is reported as
 * `<path>: expected ..., got ...`, all of them at once, in an InputError (exit 2).
 */
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { parseDocument } from 'yaml';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { InputError } from '../errors.ts';
import { deepMerge } from '../runner/merge.ts';
import type { BrokerCapabilities, BrokerSettings, RuntimeKind } from '../broker/contract.ts';
import { faultProblems, type CheckedFaultKind, type Target } from './static-check.ts';
import type { ExpectationSpec, Scenario, TimeDistribution } from './types.ts';
import {
  ANOMALY_TYPES,
  DEFAULT_EXPECT_ZERO,
  DURATION_COMMENT,
  EXPECTATION_COMMENT,
  EXPECTATION_LIST_COMMENT,
  WINDOW_KEYWORDS,
  scenarioSchema,
  FINAL_STATE_EXPECTATION,
} from './schema.ts';
import { intendedSchedule } from '../workload/schedule.ts';
import { STRATEGIES, STRATEGY_COMMENT } from '../consumer/strategies/schema.ts';
import { strategyOptions } from '../consumer/strategies/registry.ts';
import { drainBoundMs, drainPlan } from '../runner/drain.ts';

export type SchemaObject = Record<string, unknown>;

/** The nightly suite's bound on warm-up + duration + drain timeout, unless run.maxDurationMs says more. */
export const NIGHTLY_LIMIT_MS = 90_000;

// ---------------------------------------------------------------------------------------------
// Hooks for the schemas other modules own

const registeredFaults = new Map<string, SchemaObject>();

/**
 * Registers the JSON Schema of a fault kind's own fields (besides name, kind, atMs,
 * durationMs). Its properties are merged with the common ones; unless it says otherwise, a
 * field it does not name is an error. A field may use durationSchema from schema.ts.
 */
export function registerFaultSchema(kind: string, schema: SchemaObject): void {
  registeredFaults.set(kind, schema);
  compiledFaults.delete(kind);
}

export function registeredFaultKinds(): string[] {
  return [...registeredFaults.keys()].sort();
}

/** What the loader needs of a broker module. */
export interface BrokerSchemaModule {
  settingsSchema: SchemaObject;
  resolveSettings?(settings: BrokerSettings): BrokerSettings;
  /** What the broker can do with resolved settings on a runtime; faults are checked against it. */
  capabilities?(settings: BrokerSettings, runtime: RuntimeKind): BrokerCapabilities;
  /** See BrokerModule.redeliveryHorizonMs: the default drain's length. */
  redeliveryHorizonMs?(settings: BrokerSettings): number;
}

export interface LoadOptions {
  /** File name for messages and the default scenario name. */
  file?: string;
  /**
   * Finds the broker module for `broker.kind`. Default: brokers/<kind> via the registry (an
   * unknown kind is an error). Return undefined to leave the broker section unchecked (a
   * warning says so).
   */
  broker?: (kind: string) => Promise<BrokerSchemaModule | undefined>;
  /**
   * Fault kind schemas. Default: those given to registerFaultSchema, plus every kind in
   * harness/faults/ (its registry). With none at all, fault kinds are not checked (a warning).
   */
  faultSchemas?: Map<string, SchemaObject>;
  /**
   * Fault kinds whose `check` and `destructive` apply to the resolved faults. Default: the
   * registry's, unless `faultSchemas` is given (then none).
   */
  faultKinds?: Map<string, CheckedFaultKind>;
  /** Where the scenario will run (default: local, nothing destructive allowed on external). */
  target?: Partial<Target>;
}

export interface LoadResult {
  scenario: Scenario;
  warnings: string[];
}

/** An invalid scenario: the message names the file, `detail` has one line per problem. */
export class ScenarioError extends InputError {
  constructor(
    readonly file: string,
    readonly errors: string[],
  ) {
    super(`${file}: invalid scenario (${errors.length} ${errors.length === 1 ? 'problem' : 'problems'})`, errors);
    this.name = 'ScenarioError';
  }
}

// ---------------------------------------------------------------------------------------------
// Entry points

/** Reads, checks and resolves a scenario file; warnings go to `onWarning` (default stderr). */
export async function loadScenarioFile(
  file: string,
  options: Omit<LoadOptions, 'file'> & { onWarning?: (line: string) => void } = {},
): Promise<Scenario> {
  const { scenario, warnings } = await loadScenario(file, options);
  const warn = options.onWarning ?? ((line: string) => process.stderr.write(`convoy: warning: ${line}\n`));
  for (const w of warnings) warn(`${file}: ${w}`);
  return scenario;
}

export async function loadScenario(file: string, options: Omit<LoadOptions, 'file'> = {}): Promise<LoadResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new InputError(`${file}: cannot read: ${(err as Error).message}`);
  }
  return parseScenario(text, { ...options, file });
}

/** Checks and resolves scenario YAML text. */
export async function parseScenario(text: string, options: LoadOptions = {}): Promise<LoadResult> {
  const file = options.file ?? '<scenario>';
  const data = parseYaml(text, file);
  const errors: string[] = [];
  const warnings: string[] = [];

  if (!validateScenario(data)) errors.push(...formatErrors(validateScenario.errors ?? [], data, '', scenarioSchema));
  const raw = data as Record<string, any>;

  // The broker section, against the module's own schema.
  let broker: BrokerSettings | undefined;
  let brokerModule: BrokerSchemaModule | undefined;
  if (isObject(raw.broker) && typeof raw.broker.kind === 'string' && raw.broker.kind !== '') {
    const kind = raw.broker.kind as string;
    try {
      brokerModule = await (options.broker ?? registryBroker)(kind);
    } catch (err) {
      errors.push(err instanceof InputError ? err.message : `broker.kind: cannot load broker "${kind}": ${(err as Error).message}`);
    }
    if (brokerModule) errors.push(...validateAgainst(brokerSchemaFor(brokerModule.settingsSchema, kind), raw.broker, 'broker'));
    else if (!errors.some((e) => e.startsWith('broker.kind'))) warnings.push(`broker section not checked: no module for broker "${kind}"`);
  }

  // Each fault against its kind's schema.
  const faultSchemas = options.faultSchemas ?? (await defaultFaultSchemas());
  if (Array.isArray(raw.faults)) {
    if (faultSchemas.size === 0 && raw.faults.length > 0) warnings.push('fault kinds not checked: no fault kinds are registered');
    raw.faults.forEach((f: unknown, i: number) => {
      if (!isObject(f) || typeof f.kind !== 'string' || faultSchemas.size === 0) return;
      const schema = faultSchemas.get(f.kind);
      if (!schema) {
        errors.push(`faults[${i}].kind: expected one of ${[...faultSchemas.keys()].sort().join(', ')}; got ${show(f.kind)}`);
        return;
      }
      errors.push(...validateAgainst(faultValidator(f.kind, schema), f, `faults[${i}]`).filter((e) => !errors.includes(e)));
    });
  }
  if (errors.length) throw new ScenarioError(file, dedupe(errors));

  // Defaults, durations, then checks across fields.
  const resolved = fillDefaults(scenarioSchema, structuredClone(raw), scenarioSchema) as Record<string, any>;
  resolved.name ??= defaultName(options.file);
  if (Array.isArray(resolved.faults)) {
    resolved.faults = resolved.faults.map((f: Record<string, unknown>) => {
      const s = faultSchemas.get(f.kind as string);
      return s ? fillDefaults(s, f, s) : f;
    });
  }
  resolved.expect = resolveExpectations(resolved.expect ?? {});
  errors.push(...crossChecks(resolved as Scenario, raw, warnings));
  if (errors.length) throw new ScenarioError(file, dedupe(errors));

  if (brokerModule?.resolveSettings) {
    try {
      broker = brokerModule.resolveSettings(resolved.broker as BrokerSettings);
    } catch (err) {
      const lines = err instanceof InputError && err.detail.length ? err.detail : [`broker: ${(err as Error).message}`];
      throw new ScenarioError(file, lines);
    }
    resolved.broker = broker;
    // A producer's own settings (and each process's) must make valid broker settings too.
    const problems: string[] = [];
    (resolved.workload?.producers ?? []).forEach((p: { broker?: Record<string, unknown>; processBroker?: Record<string, unknown>[] }, i: number) => {
      const forProducer = p.broker ? deepMerge(broker as Record<string, unknown>, p.broker) : broker;
      const overrides: [string, Record<string, unknown>][] = p.broker ? [[`workload.producers[${i}].broker`, forProducer as Record<string, unknown>]] : [];
      (p.processBroker ?? []).forEach((o, j) => overrides.push([`workload.producers[${i}].processBroker[${j}]`, deepMerge(forProducer as Record<string, unknown>, o)]));
      for (const [where, merged] of overrides) {
        try {
          brokerModule!.resolveSettings!(merged as BrokerSettings);
        } catch (err) {
          const lines = err instanceof InputError && err.detail.length ? err.detail : [(err as Error).message];
          problems.push(...lines.map((l) => `${where}: ${l}`));
        }
      }
    });
    if (problems.length) throw new ScenarioError(file, problems);
  }
  // Faults against what the broker can do here and what the scenario has.
  const target: Target = { runtime: options.target?.runtime ?? 'local', allowDestructive: options.target?.allowDestructive ?? false };
  const kinds = options.faultKinds ?? (options.faultSchemas ? new Map<string, CheckedFaultKind>() : await defaultFaultKinds());
  const capabilities = brokerModule?.capabilities?.(resolved.broker as BrokerSettings, target.runtime);
  const faultErrors = faultProblems(resolved as Scenario, target, capabilities, kinds);
  if (faultErrors.length) throw new ScenarioError(file, faultErrors);
  const horizonMs = broker && brokerModule?.redeliveryHorizonMs ? brokerModule.redeliveryHorizonMs(broker) : 0;
  warnings.push(...durationWarnings(resolved as Scenario, raw, horizonMs));
  const late = windowsInsideRun(resolved as Scenario, horizonMs);
  if (late.length) throw new ScenarioError(file, late);
  return { scenario: orderScenario(resolved as Scenario), warnings };
}

// ---------------------------------------------------------------------------------------------
// YAML

function parseYaml(text: string, file: string): unknown {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length) {
    const lines = doc.errors.map((e) => {
      const pos = e.linePos?.[0];
      const where = pos ? `${file}:${pos.line}:${pos.col}` : file;
      const first = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
      return `${where}: YAML syntax error: ${first}`;
    });
    throw new InputError(`${file}: not valid YAML`, lines);
  }
  const data = doc.toJS({ maxAliasCount: 100 }) as unknown;
  if (!isObject(data)) throw new InputError(`${file}: expected a mapping at the top of the file, got ${show(data)}`);
  return data;
}

// ---------------------------------------------------------------------------------------------
// ajv

function newAjv(strict: boolean): Ajv2020 {
  return new Ajv2020({
    allErrors: true,
    verbose: true,
    strict,
    strictRequired: false,
    allowUnionTypes: true,
    discriminator: true,
  });
}

const ajv = newAjv(true);
const validateScenario: ValidateFunction = ajv.compile(scenarioSchema as unknown as SchemaObject);
/** Other modules' schemas: compiled leniently (their keywords are theirs). */
const foreignAjv = newAjv(false);
const compiledFaults = new Map<string, ValidateFunction>();
const compiledBrokers = new WeakMap<SchemaObject, ValidateFunction>();

function validateAgainst(validate: ValidateFunction, data: unknown, base: string): string[] {
  if (validate(data)) return [];
  return formatErrors(validate.errors ?? [], data, base, validate.schema as SchemaObject);
}

function brokerSchemaFor(schema: SchemaObject, kind: string): ValidateFunction {
  let v = compiledBrokers.get(schema);
  if (!v) {
    // The section always carries `kind`; a module schema that does not name it still accepts it.
    const props = isObject(schema.properties) ? schema.properties : undefined;
    const s = props && !('kind' in props) ? { ...schema, properties: { kind: { const: kind }, ...props } } : schema;
    v = foreignAjv.compile(s);
    compiledBrokers.set(schema, v);
  }
  return v;
}

function faultValidator(kind: string, own: SchemaObject): ValidateFunction {
  let v = compiledFaults.get(kind);
  if (v) return v;
  const common = (scenarioSchema.$defs.fault.properties as unknown) as Record<string, unknown>;
  const { properties, required, additionalProperties, type: _type, $schema: _s, ...rest } = own as Record<string, any>;
  const merged: SchemaObject = {
    type: 'object',
    properties: {
      ...common,
      kind: { const: kind },
      ...(isObject(properties) ? properties : {}),
    },
    required: [...new Set(['name', 'kind', 'atMs', ...(Array.isArray(required) ? required : [])])],
    additionalProperties: additionalProperties ?? false,
    $defs: { duration: scenarioSchema.$defs.duration },
  };
  if (Object.keys(rest).length) merged.allOf = [rest];
  v = foreignAjv.compile(merged);
  compiledFaults.set(kind, v);
  return v;
}

async function registryBroker(kind: string): Promise<BrokerSchemaModule | undefined> {
  const { brokerNames, loadBroker } = await import('../broker/registry.ts');
  let names: string[] = [];
  try {
    names = brokerNames();
  } catch {
    names = [];
  }
  if (!names.includes(kind)) {
    throw new InputError(`broker.kind: expected one of ${names.length ? names.join(', ') : '(no brokers installed)'}; got ${show(kind)}`);
  }
  return loadBroker(kind);
}

async function defaultFaultKinds(): Promise<Map<string, CheckedFaultKind>> {
  try {
    const { faultKinds } = await import('../faults/registry.ts');
    return await faultKinds();
  } catch {
    return new Map();
  }
}

async function defaultFaultSchemas(): Promise<Map<string, SchemaObject>> {
  const out = new Map<string, SchemaObject>();
  try {
    const { faultKinds } = (await import('../faults/registry.ts')) as {
      faultKinds(): Promise<Map<string, { schema: SchemaObject }>>;
    };
    for (const [kind, k] of await faultKinds()) out.set(kind, k.schema);
  } catch {
    // No fault registry (yet): only registered schemas count.
  }
  for (const [kind, s] of registeredFaults) out.set(kind, s);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Error messages

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
  // Issue 21: a strategy is a name or { kind, ...options }: report the errors of the form given.
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
        out.push(`${path}: expected 0, ">0", "any" or { expect, during | before | after | outside }, got ${show(value)}`);
        continue;
      }
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
        const sub = isObject(parent.properties) ? (parent.properties as Record<string, SchemaObject>)[prop] : undefined;
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

function deref(schema: unknown, root: SchemaObject): SchemaObject {
  let s = (isObject(schema) ? schema : {}) as SchemaObject;
  for (let i = 0; i < 10 && typeof s.$ref === 'string'; i++) {
    const { $ref, ...rest } = s;
    s = { ...resolvePointer(root, $ref as string), ...rest };
  }
  return s;
}

function resolvePointer(root: SchemaObject, ref: string): SchemaObject {
  if (!ref.startsWith('#')) return {};
  let cur: unknown = root;
  for (const seg of ref.slice(1).split('/').slice(1)) {
    cur = isObject(cur) ? cur[unescapePointer(seg)] : undefined;
  }
  return isObject(cur) ? cur : {};
}

const NAME_PATTERN = scenarioSchema.$defs.producer.properties.name.pattern;

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

/** The closest known name within a small edit distance, for "did you mean". */
export function suggest(word: string, known: string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  const lower = word.toLowerCase();
  for (const k of known) {
    const d = k.toLowerCase() === lower ? 0 : editDistance(lower, k.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  const limit = Math.max(1, Math.min(3, Math.floor(word.length / 3)));
  return best !== undefined && bestD <= limit ? best : undefined;
}

/** Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unescapePointer(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

function valueAt(data: unknown, pointer: string): unknown {
  let cur = data;
  for (const seg of pointer.split('/').slice(1)) cur = isObject(cur) || Array.isArray(cur) ? (cur as any)[unescapePointer(seg)] : undefined;
  return cur;
}

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

/** A value as the user wrote it: strings quoted, lists and mappings named. */
export function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return 'a list';
  if (isObject(v)) return 'a mapping';
  return String(v);
}

function plain(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function dedupe(lines: string[]): string[] {
  return [...new Set(lines)];
}

function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// ---------------------------------------------------------------------------------------------
// Defaults and durations

/** Milliseconds from a number (already ms) or a string "250ms", "30s", "2m", "1h", "500us". */
export function parseDuration(v: number | string): number {
  if (typeof v === 'number') return v;
  const m = /^([0-9]+(?:\.[0-9]+)?)(us|ms|s|m|h)$/.exec(v.trim());
  if (!m) throw new RangeError(`not a duration: ${JSON.stringify(v)}`);
  const n = Number(m[1]);
  const factor = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'us' | 'ms' | 's' | 'm' | 'h'];
  return n * factor;
}

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

function defaultName(file: string | undefined): string {
  if (!file) return 'scenario';
  const stem = basename(file, extname(file)).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return stem || 'scenario';
}

/** Every anomaly type gets an expectation: the scenario's, else 0 for the checker's defaults, else any. */
function resolveExpectations(given: Record<string, ExpectationSpec | ExpectationSpec[]>): Record<string, ExpectationSpec | ExpectationSpec[]> {
  const one = (v: ExpectationSpec): ExpectationSpec => (v === 0 ? '0' : isObject(v) ? ({ ...v, expect: v.expect === 0 ? '0' : v.expect } as ExpectationSpec) : v);
  const out: Record<string, ExpectationSpec | ExpectationSpec[]> = {};
  for (const t of ANOMALY_TYPES) {
    const v = given[t];
    // unseen left out stays out: then it bears on lost (checker/expectations.ts), which an
    // explicit `unseen: any` would switch off.
    if (v === undefined && t === 'unseen') continue;
    if (v === undefined) out[t] = (DEFAULT_EXPECT_ZERO as readonly string[]).includes(t) ? '0' : 'any';
    else out[t] = Array.isArray(v) ? v.map(one) : one(v);
  }
  const state = given[FINAL_STATE_EXPECTATION];
  out[FINAL_STATE_EXPECTATION] = state === undefined ? 'any' : Array.isArray(state) ? state.map(one) : one(state);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Checks across fields (after defaults)

function crossChecks(s: Scenario, raw: Record<string, any>, warnings: string[]): string[] {
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

  strategyChecks(s, errors);

  uniqueNames(s.faults, 'faults', errors);
  const faultNames = s.faults.map((f) => f.name);
  for (const [type, specs] of Object.entries(s.expect)) {
    for (const spec of Array.isArray(specs) ? specs : [specs]) crossCheckExpectation(type, spec, faultNames, errors);
  }
  return errors;
}

/**
 * Issue 21: the consumers' strategy, and any a wrong-state expectation names, must fit the
 * entity's events (a commutative strategy needs deltas, a state machine a status).
 */
function strategyChecks(s: Scenario, errors: string[]): void {
  const e = s.workload.entity;
  const events = `workload.entity is ${e.kind} with events: ${e.events}`;
  const fit = (name: string) => STRATEGIES.get(name)?.unfit?.(e);
  const fitting = () => [...STRATEGIES.keys()].filter((n) => !fit(n)).join(', ');
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
  if (!isObject(spec)) return;
  const windows = WINDOW_KEYWORDS.filter((k) => (spec as Record<string, unknown>)[k] !== undefined);
  if (windows.length > 1) errors.push(`expect.${type}: expected at most one of ${WINDOW_KEYWORDS.join(', ')}, got ${windows.join(' and ')}`);
  for (const k of windows) {
    const ref = (spec as Record<string, unknown>)[k] as string;
    if (type === FINAL_STATE_EXPECTATION) errors.push(`expect.${type}.${k}: the final state has no time; expected no window`);
    else if (!faultNames.includes(ref)) {
      errors.push(`expect.${type}.${k}: expected the name of a fault (${faultNames.length ? faultNames.join(', ') : 'the scenario has none'}), got ${show(ref)}`);
    }
  }
}

/**
 * An expectation scoped to a fault must be able to see that fault: it starts before the run's
 * traffic is over (sending, then the drain timeout; as in durationWarnings) and before the
 * run's hard bound stops everything.
 */
function windowsInsideRun(s: Scenario, brokerHorizonMs: number): string[] {
  const sending = plannedSendingMs(s);
  const errors: string[] = [];
  const lastStart = (f: Scenario['faults'][number]): string | undefined => {
    if (s.workload.warmupMs + f.atMs >= s.run.maxDurationMs) {
      return `run.maxDurationMs ${secs(s.run.maxDurationMs)} ends the run before it (warm-up ${secs(s.workload.warmupMs)} + ${secs(f.atMs)})`;
    }
    if (sending === undefined) return undefined;
    // The drain: its cap, or else the broker's redelivery horizon plus margin (as durationWarnings).
    const drainMs = drainBoundMs(drainPlan(brokerHorizonMs, s.run.drainTimeoutMs));
    const end = sending - s.workload.warmupMs + drainMs;
    if (f.atMs >= end) return `the run is over by then (sending ${secs(sending - s.workload.warmupMs)} + drain ${secs(drainMs)} = ${secs(end)} into the measured phase)`;
    return undefined;
  };
  for (const [type, specs] of Object.entries(s.expect)) {
    (Array.isArray(specs) ? specs : [specs]).forEach((spec, i) => {
      if (!isObject(spec)) return;
      for (const k of WINDOW_KEYWORDS) {
        const f = s.faults.find((x) => x.name === (spec as Record<string, unknown>)[k]);
        const why = f && lastStart(f);
        if (f && why) {
          const path = `expect.${type}${Array.isArray(specs) ? `[${i}]` : ''}.${k}`;
          errors.push(`${path}: fault ${show(f.name)} starts at ${secs(f.atMs)}, which cannot happen inside the run: ${why}`);
        }
      }
    });
  }
  return errors;
}

function uniqueNames(items: { name: string }[], path: string, errors: string[]): void {
  const first = new Map<string, number>();
  items.forEach((it, i) => {
    const j = first.get(it.name);
    if (j === undefined) first.set(it.name, i);
    else errors.push(`${path}[${i}].name: expected a unique name, got ${show(it.name)} (also ${path}[${j}].name)`);
  });
}

/** Planned time of the workload (warm-up + sending), in ms; undefined when only the client's speed bounds it. */
export function plannedSendingMs(s: Pick<Scenario, 'workload'>): number | undefined {
  const w = s.workload;
  if (w.durationMs !== undefined) {
    let ms = w.warmupMs + w.durationMs;
    if (w.messages !== undefined && w.rate.kind !== 'unlimited') {
      const last = intendedSchedule(w.rate)(w.messages - 1);
      if (last !== null) ms = Math.min(ms, last / 1000);
    }
    return ms;
  }
  if (w.messages === undefined || w.rate.kind === 'unlimited') return undefined;
  const last = intendedSchedule(w.rate)(w.messages - 1);
  return last === null ? undefined : Math.max(w.warmupMs, last / 1000);
}

function durationWarnings(s: Scenario, raw: Record<string, any>, brokerHorizonMs: number): string[] {
  const out: string[] = [];
  const plan = drainPlan(brokerHorizonMs, s.run.drainTimeoutMs);
  const drainMs = drainBoundMs(plan);
  if (plan.capMs !== null && plan.capMs < plan.horizonMs) {
    out.push(
      `run.drainTimeoutMs ${secs(plan.capMs)} is shorter than the broker's redelivery horizon plus margin (${secs(plan.horizonMs)}): ` +
        'a message on its way back when the drain stops is reported unseen and the verdict may be unknown',
    );
  }
  const sending = plannedSendingMs(s);
  const explicitMax = raw.run?.maxDurationMs !== undefined;
  const limit = explicitMax ? Math.max(NIGHTLY_LIMIT_MS, s.run.maxDurationMs) : NIGHTLY_LIMIT_MS;
  if (sending === undefined) {
    if (!explicitMax) out.push(`planned duration unknown (unlimited rate bounded by a message count); the nightly suite allows ${secs(NIGHTLY_LIMIT_MS)}`);
  } else {
    const planned = sending + drainMs;
    const parts = `warm-up ${secs(s.workload.warmupMs)} + sending ${secs(sending - s.workload.warmupMs)} + drain ${plan.capMs === null ? 'up to the redelivery horizon' : 'timeout'} ${secs(drainMs)}`;
    if (planned > limit) {
      out.push(
        explicitMax
          ? `planned duration ${secs(planned)} (${parts}) is over run.maxDurationMs ${secs(s.run.maxDurationMs)}: the run will be cut short`
          : `planned duration ${secs(planned)} (${parts}) is over the nightly limit of ${secs(NIGHTLY_LIMIT_MS)}; set run.maxDurationMs to allow more`,
      );
    } else if (planned > s.run.maxDurationMs) {
      out.push(`planned duration ${secs(planned)} (${parts}) is over run.maxDurationMs ${secs(s.run.maxDurationMs)}: the run will be cut short`);
    }
    // Faults may act during the drain (a redrive, say), but not past it.
    const end = sending - s.workload.warmupMs + drainMs;
    for (const f of s.faults) {
      if (f.atMs + f.durationMs > end) {
        out.push(`faults: ${f.name} ends at ${secs(f.atMs + f.durationMs)}, after the drain (${secs(end)} into the measured phase)`);
      }
    }
  }
  return out;
}

export function secs(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(s < 10 ? 2 : 1).replace(/\.?0+$/, '')} s`;
}

/** The resolved scenario with its sections in the order of types.ts (stable results). */
function orderScenario(s: Scenario): Scenario {
  return {
    name: s.name,
    description: s.description,
    seed: s.seed,
    broker: s.broker,
    workload: s.workload,
    consumers: s.consumers,
    faults: s.faults,
    expect: s.expect,
    run: s.run,
  };
}
