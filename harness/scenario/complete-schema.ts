/**
 * The scenario schema as published for editors (harness/scenario/scenario.schema.json): the
 * loader's schema (schema.ts), whose `broker` section and faults' own fields are open there
 * (the loader checks them against the broker module's and the fault kind's own schemas, with
 * their own wording), completed with one branch per broker kind and per fault kind, made from
 * those same schemas: `broker.kind` and a fault's `kind` become lists, and an `if` on the kind
 * closes the section with that kind's fields, so an editor completes and checks every field.
 */
import { KEPT_AS_WRITTEN, takesDuration } from '../duration.ts';
import { scenarioSchema } from './schema.ts';
import { faultSchemaFor } from './validate.ts';
import { isObject, type SchemaObject } from './values.ts';

export interface SchemaCompletion {
  /** Each broker kind's settingsSchema (brokers/<kind>/), by kind. */
  brokers: ReadonlyMap<string, SchemaObject>;
  /** Each fault kind's own schema (harness/faults/<kind>.ts), by kind. */
  faults: ReadonlyMap<string, { schema: SchemaObject }>;
}

export const brokerDef = (kind: string) => `broker-${kind}`;
export const faultDef = (kind: string) => `fault-${kind}`;

/** An `if` that holds when the value at `path` (object keys) is `kind`. */
function when(path: string[], kind: string): SchemaObject {
  let s: SchemaObject = { const: kind };
  for (const key of [...path].reverse()) s = { type: 'object', required: [key], properties: { [key]: s } };
  return s;
}

const object = (properties: SchemaObject): SchemaObject => ({ type: 'object', properties });

/** A module's schema as a `$defs` entry: no `$schema` or `$id` of its own (they belong to a document's root). */
function embedded(schema: SchemaObject): SchemaObject {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

/**
 * Broker settings take durations as every time in a scenario does (duration.ts): a `...Ms`
 * number field also takes a string with a unit ("8s"), which the loader turns into ms before
 * the module's schema sees it.
 */
function acceptDurations(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const out: SchemaObject = { ...schema };
  if (isObject(schema.properties)) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([key, p]) => {
        if (!takesDuration(key)) return [key, KEPT_AS_WRITTEN.has(key) ? p : acceptDurations(p)];
        const isNumber = isObject(p) && (p.type === 'integer' || p.type === 'number');
        if (!isNumber) return [key, p];
        const { description, ...number } = p as SchemaObject;
        const duration = scenarioSchema.$defs.duration as unknown as SchemaObject;
        return [key, { ...(description !== undefined ? { description } : {}), anyOf: [number, { type: 'string', pattern: duration.pattern, description: duration.description }] }];
      }),
    );
  }
  return out;
}

/** A kind's settings with nothing required: the section's `kind` is (the branch's `if` says it), a producer's override needs none. */
function optional(settings: SchemaObject): SchemaObject {
  const { required: _r, ...rest } = settings;
  return rest;
}

export function completeScenarioSchema(c: SchemaCompletion): Record<string, unknown> {
  const s = structuredClone(scenarioSchema) as any;
  const brokers = [...c.brokers.keys()].sort();
  const faults = [...c.faults.keys()].sort();

  // The broker: its kind from the list; each kind's settings in a branch of their own.
  s.properties.broker.properties.kind = { ...s.properties.broker.properties.kind, enum: brokers, description: 'A broker: a folder under brokers/.' };
  for (const kind of brokers) {
    s.$defs[brokerDef(kind)] = optional(acceptDurations(embedded(c.brokers.get(kind)!)) as SchemaObject);
  }
  // A producer's broker overrides are that kind's settings too.
  const override = (kind: string) => ({ $ref: `#/$defs/${brokerDef(kind)}` });
  s.allOf = brokers.map((kind) => ({
    if: when(['broker', 'kind'], kind),
    then: {
      type: 'object',
      properties: {
        broker: { $ref: `#/$defs/${brokerDef(kind)}` },
        workload: object({ producers: { type: 'array', items: object({ broker: override(kind), processBroker: { type: 'array', items: override(kind) } }) } }),
      },
    },
  }));

  // A fault: its kind from the list; each kind's fields (the common ones and its own) closed in a branch.
  const fault = s.$defs.fault;
  fault.properties.kind = { ...fault.properties.kind, enum: faults };
  for (const kind of faults) {
    const { $defs: _d, ...own } = faultSchemaFor(kind, c.faults.get(kind)!.schema);
    s.$defs[faultDef(kind)] = embedded(own);
  }
  fault.allOf = faults.map((kind) => ({ if: when(['kind'], kind), then: { $ref: `#/$defs/${faultDef(kind)}` } }));
  return withTwins(s);
}

/**
 * A twin (`extends:`) states only what differs from its parent (extends.ts): no field is
 * required, `key: null` removes one, and a mapping of a union may leave its `kind` to the
 * parent. So the root checks a file with `extends` against a relaxed copy of every
 * definition (`twin-<name>`), and any other against the scenario (`#/$defs/scenario`).
 */
function withTwins(s: SchemaObject): SchemaObject {
  const { $schema, $id, $comment, title, description, $defs, if: _if, then: _then, ...scenario } = s as Record<string, any>;
  const file = { ...scenario, required: ['broker', 'workload'] };
  const defs: Record<string, unknown> = { ...$defs, scenario: file };
  for (const [name, def] of Object.entries(defs)) defs[twin(name)] = relax(def);
  return {
    $schema, $id, ...($comment !== undefined ? { $comment } : {}), title, description,
    type: 'object',
    if: { type: 'object', required: ['extends'] },
    then: { $ref: `#/$defs/${twin('scenario')}` },
    else: { $ref: '#/$defs/scenario' },
    $defs: defs,
  };
}

const twin = (name: string) => `twin-${name}`;
const DEFS = '#/$defs/';
/** Keywords whose values are data, not schemas; and `if`, whose `required` gives the condition its sense. */
const AS_IS = new Set(['default', 'const', 'enum', 'examples', 'if', 'pattern', 'description', '$comment']);

function relax(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(relax);
  if (!isObject(node)) return node;
  const out: SchemaObject = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'required' || k === 'discriminator') continue;
    if (AS_IS.has(k)) out[k] = v;
    else if (k === '$ref' && typeof v === 'string' && v.startsWith(DEFS)) out[k] = DEFS + twin(v.slice(DEFS.length));
    // Partial branches of a union may match several: any will do.
    else if (k === 'oneOf') out.anyOf = relax(v);
    else if (k === 'properties' && isObject(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, p]) => [name, { anyOf: [relax(p), { type: 'null' }] }]));
    else out[k] = relax(v);
  }
  return out;
}
