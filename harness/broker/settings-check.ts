import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject } from 'ajv';

/**
 * A broker module's settings validator from its JSON Schema: errors as "broker.<path>:
 * message" lines that name unknown fields with the allowed ones, and enum values.
 */
export function settingsChecker(schema: Record<string, unknown>): (settings: unknown) => string[] {
  // validateSchema: false: the scenario loader checks the schema itself against the JSON Schema
  // meta-schema (scenario/validate.ts), and compiling the meta-schema again here cost every
  // worker process about 150 ms of CPU at start.
  const validate = new Ajv2020({ allErrors: true, strict: false, verbose: true, validateSchema: false }).compile(schema);
  return (settings) => (validate(settings) ? [] : (validate.errors ?? []).map(describe));
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
