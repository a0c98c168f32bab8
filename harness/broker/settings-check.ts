import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';

const require = createRequire(import.meta.url);

/** Set in a worker process: its settings come from the runner, which checked them already. */
let checkedByRunner = false;

/**
 * Called by a worker process: broker settings here are the runner's resolved ones, so the
 * checkers skip the schema (and ajv is never loaded: about 150 ms of CPU per worker).
 */
export function settingsCheckedByRunner(): void {
  checkedByRunner = true;
}

/**
 * A broker module's settings validator from its JSON Schema: errors as "broker.<path>:
 * message" lines that name unknown fields with the allowed ones, and enum values. The schema
 * is compiled on the first check, not when the broker module loads.
 */
export function settingsChecker(schema: Record<string, unknown>): (settings: unknown) => string[] {
  let validate: ValidateFunction | undefined;
  return (settings) => {
    if (checkedByRunner) return [];
    validate ??= compile(schema);
    return validate(settings) ? [] : (validate.errors ?? []).map(describe);
  };
}

function compile(schema: Record<string, unknown>): ValidateFunction {
  // Loaded here, synchronously, so that a process that never checks settings never loads it.
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  // validateSchema: false: the scenario loader checks the schema itself against the JSON Schema
  // meta-schema (scenario/validate.ts), and compiling the meta-schema again here cost every
  // worker process about 150 ms of CPU at start.
  return new Ajv2020({ allErrors: true, strict: false, verbose: true, validateSchema: false }).compile(schema);
}

function describe(e: ErrorObject): string {
  const path = `broker${e.instancePath.replace(/\//g, '.')}`;
  if (e.keyword === 'additionalProperties') {
    const extra = (e.params as { additionalProperty: string }).additionalProperty;
    const allowed = Object.keys((e.parentSchema as { properties?: object }).properties ?? {});
    return `${path}: unknown field "${extra}" (allowed: ${allowed.join(', ')})`;
  }
  if (e.keyword === 'enum') return `${path}: ${e.message} (${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')})`;
  return `${path}: ${e.message}`;
}
