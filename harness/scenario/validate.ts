/**
 * Schema validation: the scenario against the scenario schema (with the catalogue's strategies
 * and modes), the broker section against its module's settingsSchema, each fault against its
 * kind's schema merged with the common fault fields. Returns problem lines (wording.ts).
 */
import { createRequire } from 'node:module';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { scenarioSchema, scenarioSchemaFor } from './schema.ts';
import type { ScenarioCatalogue } from './catalogue.ts';
import { formatErrors } from './wording.ts';
import { isObject, type SchemaObject } from './values.ts';
import { compileCached } from './compiled.ts';
import { durationsInMs } from '../duration.ts';

const require = createRequire(import.meta.url);

/** ajv's options; `code.source` lets compiled.ts write a validator's code to its cache. */
const options = (strict: boolean) => ({ allErrors: true, verbose: true, strict, strictRequired: false, allowUnionTypes: true, discriminator: true, code: { source: true } });

/** Compiles through the cache (compiled.ts); ajv itself is loaded on the first miss only. */
function compiler(strict: boolean): (schema: object) => ValidateFunction {
  let ajv: Ajv2020 | undefined;
  const make = () => (ajv ??= new (require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020(options(strict)));
  return (schema) => compileCached(make, options(strict), schema);
}

const ajv = { compile: compiler(true) };
/** Other modules' schemas: compiled leniently (their keywords are theirs). */
const foreignAjv = { compile: compiler(false) };

/** Compiled once per set of plug-ins (and per broker or fault schema). */
const compiledScenario = new Map<string, ValidateFunction>();
const compiledBrokers = new WeakMap<SchemaObject, ValidateFunction>();
const compiledFaults = new WeakMap<SchemaObject, ValidateFunction>();

/** The scenario's own problems (the broker section and faults' own fields are left open here). */
export function scenarioProblems(data: unknown, catalogue: ScenarioCatalogue): string[] {
  const plugins = { strategies: catalogue.strategies, modes: catalogue.modes, gatewayModes: catalogue.gatewayModes };
  const key = JSON.stringify([...plugins.strategies, ...plugins.modes, ...plugins.gatewayModes.keys()]);
  let v = compiledScenario.get(key);
  if (!v) {
    // Without its $id: one ajv holds several variants (the plug-ins differ, the $id does not).
    const { $id: _id, ...schema } = scenarioSchemaFor(plugins);
    v = ajv.compile(schema);
    compiledScenario.set(key, v);
  }
  return problemsOf(v, data, '');
}

/** The broker section against its module's settingsSchema. */
export function brokerProblems(settingsSchema: SchemaObject, kind: string, section: unknown): string[] {
  let v = compiledBrokers.get(settingsSchema);
  if (!v) {
    // The section always carries `kind`; a module schema that does not name it still accepts it.
    const props = isObject(settingsSchema.properties) ? settingsSchema.properties : undefined;
    const s = props && !('kind' in props) ? { ...settingsSchema, properties: { kind: { const: kind }, ...props } } : settingsSchema;
    v = foreignAjv.compile(s);
    compiledBrokers.set(settingsSchema, v);
  }
  // Its `...Ms` fields take durations ("8s") as every time in a scenario does.
  return problemsOf(v, durationsInMs(section), 'broker');
}

/** One fault (`faults[i]`) against its kind's own schema and the fields every fault has. */
export function faultFieldProblems(kind: string, own: SchemaObject, fault: unknown, base: string): string[] {
  let v = compiledFaults.get(own);
  if (!v) {
    v = foreignAjv.compile(faultSchemaFor(kind, own));
    compiledFaults.set(own, v);
  }
  return problemsOf(v, fault, base);
}

/**
 * A fault kind's schema as one closed object: the common fields (name, kind, atMs, durationMs)
 * and the kind's own; unless the kind says otherwise, a field neither names is an error.
 */
export function faultSchemaFor(kind: string, own: SchemaObject): SchemaObject {
  const common = scenarioSchema.$defs.fault.properties as unknown as Record<string, unknown>;
  const { properties, required, additionalProperties, type: _type, $schema: _s, ...rest } = own as Record<string, any>;
  const merged: SchemaObject = {
    type: 'object',
    properties: { ...common, kind: { const: kind }, ...(isObject(properties) ? properties : {}) },
    required: [...new Set(['name', 'kind', 'atMs', ...(Array.isArray(required) ? required : [])])],
    additionalProperties: additionalProperties ?? false,
    $defs: { duration: scenarioSchema.$defs.duration },
  };
  if (Object.keys(rest).length) merged.allOf = [rest];
  return merged;
}

function problemsOf(validate: ValidateFunction, data: unknown, base: string): string[] {
  if (validate(data)) return [];
  return formatErrors(validate.errors ?? [], data, base, validate.schema as SchemaObject);
}
