/**
 * A protocol's check of its lines: each message type's own JSON Schema (TypeBox objects whose
 * `type` property is a literal), compiled with ajv on the first line checked. A line is checked
 * against its own type's schema only, so a problem names what is wrong with that message.
 */
import { createRequire } from 'node:module';
import type { TObject } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';

const require = createRequire(import.meta.url);

/** The check for lines of these message types: the problem with a line, or undefined. */
export function messageCheck(messages: readonly TObject[]): (m: Record<string, unknown>) => string | undefined {
  let validators: Map<string, ValidateFunction> | undefined;
  return (m) => {
    if (!validators) {
      const Ajv = require('ajv/dist/2020.js') as { default: new (o: object) => { compile(s: object): ValidateFunction } };
      const ajv = new Ajv.default({ strict: false, allErrors: false });
      validators = new Map(messages.map((s) => [(s.properties.type as unknown as { const: string }).const, ajv.compile(JSON.parse(JSON.stringify(s)))]));
    }
    const v = typeof m.type === 'string' ? validators.get(m.type) : undefined;
    if (!v) return `unknown message type ${JSON.stringify(m.type)}`;
    if (v(m)) return undefined;
    return (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ') || 'does not match its schema';
  };
}
