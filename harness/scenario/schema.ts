/**
 * The scenario JSON Schema (draft 2020-12). This object is the source; the published copy is
 * harness/scenario/scenario.schema.json (`node --import tsx harness/schemas/publish.ts` writes
 * it; a test checks they match). Plug-ins add their values through scenarioSchemaFor (below).
 * Every object is closed (additionalProperties: false) so that a typo fails, except `broker` (checked against the broker module's own settingsSchema) and a
 * fault's kind-specific fields (checked against the fault kind's schema).
 *
 * Defaults are `default` keywords here and nowhere else: load.ts fills them in by walking this
 * schema. A duration is a number of milliseconds or a string with a unit; fields that take
 * one refer to #/$defs/duration (recognised by its $comment).
 */
import { ANOMALY_TYPES } from '../checker/types.ts';
import { fileURLToPath } from 'node:url';
import { concurrencySchema } from '../consumer/concurrency/registry.ts';
// Issue 21: the strategies contribute `consumers.strategy` and wrong-state's `strategy` (see below).
import { STRATEGIES, strategyFieldSchema, strategyNameSchema } from '../consumer/strategies/schema.ts';
import type { ConsumerStrategy } from '../consumer/strategies/contract.ts';
import { schemaId } from '../schemas/id.ts';

export const DURATION_COMMENT = 'convoy:duration';
export const EXPECTATION_COMMENT = 'convoy:expectation';
/** One expectation or a list of them for one anomaly type. */
export const EXPECTATION_LIST_COMMENT = 'convoy:expectation-list';
export const DURATION_PATTERN = '^[0-9]+(\\.[0-9]+)?(us|ms|s|m|h)$';

/** A duration: embed it (or refer to it) in kind-specific schemas so load.ts converts it too. */
export const durationSchema = {
  $comment: DURATION_COMMENT,
  description: 'A duration: milliseconds (a number), or a string with a unit: "250ms", "30s", "2m", "1h", "500us".',
  type: ['number', 'string'],
  minimum: 0,
  pattern: DURATION_PATTERN,
} as const;

/** Anomaly types of the checker (issue 3), in its order: the checker owns the list. */
export { ANOMALY_TYPES };

/** Keys whose final state differs from the truth under the consumers' strategy. */
export const FINAL_STATE_EXPECTATION = 'wrong-state';

export const DEFAULT_EXPECT_ZERO = ['lost', 'abandoned', 'reorder', 'gap', 'overlap', 'split', 'phantom', 'ghost'] as const;

export const WINDOW_KEYWORDS = ['during', 'before', 'after', 'outside'] as const;

const dur = (description: string, extra: Record<string, unknown> = {}) => ({ $ref: '#/$defs/duration', description, ...extra });
const int = (minimum: number, description: string, extra: Record<string, unknown> = {}) => ({ type: 'integer', minimum, description, ...extra });
export const NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';
const name = { type: 'string', pattern: NAME_PATTERN, maxLength: 100 };

function branch(kind: string, description: string, properties: Record<string, unknown> = {}, required: string[] = []) {
  return {
    type: 'object',
    description,
    additionalProperties: false,
    required: ['kind', ...required],
    properties: { kind: { const: kind }, ...properties },
  };
}

/** An expectation: a value, or an object with `expect` and the given fields. */
function expectationSchema(description: string, properties: Record<string, unknown>) {
  const value = { enum: [0, '0', '>0', 'any'] };
  return {
    $comment: EXPECTATION_COMMENT,
    description,
    oneOf: [value, { type: 'object', additionalProperties: false, required: ['expect'], properties: { expect: value, ...properties } }],
  };
}

function union(description: string, branches: ReturnType<typeof branch>[], extra: Record<string, unknown> = {}) {
  return { type: 'object', description, discriminator: { propertyName: 'kind' }, oneOf: branches, ...extra };
}

export const scenarioSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: schemaId('scenario', 1),
  title: 'convoy scenario',
  description:
    'One run: the broker and its settings, the workload, the consumers, the fault timeline and the expectations. Durations are milliseconds or strings like "30s".',
  type: 'object',
  additionalProperties: false,
  // A twin (`extends:`) states only what differs: broker and workload may come from its parent.
  if: { not: { required: ['extends'] } },
  then: { required: ['broker', 'workload'] },
  properties: {
    extends: {
      type: 'string',
      minLength: 1,
      description:
        'A scenario file this one states the differences from (relative to this file). Mappings merge; `key: null` removes; a mapping of another `kind` and each expectation replace; faults and producers merge by name (`remove: true` drops one). See harness/scenario/extends.ts.',
    },
    name: { ...name, description: 'Scenario name. Default: the file name without its extension.' },
    description: { type: 'string', default: '', description: 'What the scenario shows. Default "".' },
    seed: int(0, 'Seed for keys, sizes, poison choices and handler times. Default 1.', { maximum: Number.MAX_SAFE_INTEGER, default: 1 }),
    broker: {
      type: 'object',
      description: "The broker: `kind` names a folder under brokers/; the other fields are checked against that module's settingsSchema.",
      required: ['kind'],
      properties: { kind: { type: 'string', minLength: 1 } },
      additionalProperties: true,
    },
    workload: { $ref: '#/$defs/workload' },
    consumers: { $ref: '#/$defs/consumers', default: {}, description: 'The consumer group. Default: one consumer with defaults.' },
    faults: {
      type: 'array',
      description: 'The fault timeline. Default none.',
      items: { $ref: '#/$defs/fault' },
      default: [],
    },
    expect: { $ref: '#/$defs/expect', default: {} },
    run: { $ref: '#/$defs/run', default: {} },
  },
  $defs: {
    duration: durationSchema,
    distribution: union('How keys are drawn. Default uniform.', [
      branch('uniform', 'Every key equally likely.'),
      branch('zipf', 'Key of rank r (index r-1) with probability proportional to 1/r^s.', {
        s: { type: 'number', exclusiveMinimum: 0, maximum: 10, default: 1, description: 'Exponent s. Default 1.' },
      }),
      branch(
        'hotspot',
        '`share` of the traffic on the first `hotKeys` keys, the rest uniform over the others.',
        {
          hotKeys: int(1, 'How many hot keys (fewer than keys.count). Default 1.', { default: 1 }),
          share: { type: 'number', minimum: 0, maximum: 1, description: 'Share of traffic on the hot keys, 0..1.' },
        },
        ['share'],
      ),
      branch('single', 'Every message on key index 0.'),
    ]),
    rate: union('Open-loop send rate: message i is due at start + i/rate, whatever the acks do.', [
      branch('fixed', 'A constant rate.', { perSecond: { type: 'number', exclusiveMinimum: 0, description: 'Messages per second.' } }, ['perSecond']),
      branch(
        'steps',
        'Piecewise constant: each step for its time, from the start of the warm-up; the last rate goes on (a last step of 0 ends the sending).',
        {
          steps: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['perSecond', 'forMs'],
              properties: {
                perSecond: { type: 'number', minimum: 0, description: 'Messages per second in this step (0: a pause).' },
                forMs: dur('How long this step lasts.'),
              },
            },
          },
        },
        ['steps'],
      ),
      branch('unlimited', 'As fast as the client takes messages (intended send time = actual).'),
    ]),
    size: union('Payload size in bytes (never below the header, about 30 bytes plus names). Default fixed 256.', [
      branch('fixed', 'Every message the same size.', { bytes: int(0, 'Bytes.', { maximum: 16 * 1024 * 1024 }) }, ['bytes']),
      branch(
        'uniform',
        'Uniform between min and max (inclusive).',
        { min: int(0, 'Bytes.', { maximum: 16 * 1024 * 1024 }), max: int(0, 'Bytes.', { maximum: 16 * 1024 * 1024 }) },
        ['min', 'max'],
      ),
      branch(
        'choice',
        'One of the given sizes, by weight (equal weights by default).',
        {
          bytes: { type: 'array', minItems: 1, items: int(0, 'Bytes.', { maximum: 16 * 1024 * 1024 }) },
          weights: { type: 'array', minItems: 1, items: { type: 'number', minimum: 0 } },
        },
        ['bytes'],
      ),
    ]),
    time: union('A handler time distribution (milliseconds).', [
      branch('constant', 'Always the same.', { ms: dur('Handler time.') }, ['ms']),
      branch('uniform', 'Uniform between minMs and maxMs.', { minMs: dur('Shortest.'), maxMs: dur('Longest.') }, ['minMs', 'maxMs']),
      branch('exponential', 'Exponential with the given mean.', { meanMs: dur('Mean.') }, ['meanMs']),
    ]),
    producer: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: {
        name: { ...name, description: 'The logical writer (history `producer`); numbers its keys\' messages. Keys are spread over producers by a stable hash.' },
        processes: int(1, 'OS processes sending for this writer. Default 1.', { default: 1 }),
        sharedKeys: {
          type: 'boolean',
          default: false,
          description: 'false (default): each key is sent by one process (sharded by key hash). true: processes take messages round-robin, seq still from one counter.',
        },
        broker: { type: 'object', description: "Broker settings overriding the scenario's for this producer." },
        processBroker: {
          type: 'array',
          items: { type: 'object' },
          description: "Per process, in order: broker settings overriding the producer's (e.g. one process with another partitioner).",
        },
      },
    },
    workload: {
      type: 'object',
      description: 'What is sent. Give durationMs, messages, or both (whichever comes first).',
      additionalProperties: false,
      required: ['rate'],
      properties: {
        keys: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            count: int(1, 'How many keys (entities). Default 1000.', { maximum: 10_000_000, default: 1000 }),
            distribution: { $ref: '#/$defs/distribution', default: { kind: 'uniform' } },
            prefix: { type: 'string', maxLength: 100, default: 'k', description: 'Key names are <prefix><index>, index from 0. Default "k".' },
          },
        },
        entity: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            kind: {
              enum: ['order', 'wallet', 'counter'],
              default: 'order',
              description: 'order: PLACED, PAID, SHIPPED, DELIVERED, then address and note updates; wallet: credits and debits with the balance; counter: a count. Default order.',
            },
            // Issue 21: events that carry their change (harness/workload/changes.ts).
            events: {
              enum: ['state', 'change'],
              default: 'state',
              description:
                'state: each message carries the whole state at its version (default). change: each carries only its change: orders PLACED {customer, city}, ADDRESS_CHANGED {city}, then PAID, SHIPPED, DELIVERED or CANCELLED (terminal), then notes; wallets signed amounts; counters increments.',
            },
            cancelShare: {
              type: 'number',
              minimum: 0,
              maximum: 1,
              default: 0.25,
              description: 'Orders with change events: the share that is cancelled after its address change (chosen by a hash of the key). Default 0.25.',
            },
          },
        },
        rate: { $ref: '#/$defs/rate' },
        size: { $ref: '#/$defs/size', default: { kind: 'fixed', bytes: 256 } },
        durationMs: dur('How long producers send after the warm-up (> 0).'),
        messages: int(1, 'Stop after this many messages (warm-up included).'),
        warmupMs: dur('Sending before measuring starts; excluded from the figures. Default 2 s.', { default: 2000 }),
        maxInFlight: int(1, "Sends a producer process may have awaiting their ack (the client's buffer); beyond it the schedule waits, so a stalled broker shows up as publish delay. Default 10000.", { maximum: 1_000_000, default: 10_000 }),
        producers: {
          type: 'array',
          minItems: 1,
          items: { $ref: '#/$defs/producer' },
          default: [{ name: 'producer' }],
          description: 'Logical producers. Default one, named "producer", with one process.',
        },
      },
    },
    poison: {
      type: 'object',
      description: 'Messages that fail every time: a seeded share, or every message of the given keys (or both).',
      additionalProperties: false,
      properties: {
        share: { type: 'number', minimum: 0, maximum: 1, description: 'Share of messages, 0..1.' },
        keys: { type: 'array', items: { type: 'string' }, description: 'Keys whose every message is poison.' },
        policy: {
          enum: ['retry', 'dead-letter', 'park-key'],
          default: 'retry',
          description: 'retry: block and retry with backoff, give up (dead-letter) after maxAttempts; dead-letter: at once; park-key: set it and every later message of its key aside. Default retry.',
        },
        maxAttempts: int(1, 'retry: attempts before giving up. Default 5.', { maximum: 1000, default: 5 }),
        backoffMs: dur('retry: wait before the 2nd attempt, doubling after (at most 30 s). Default 100 ms.', { default: 100 }),
      },
    },
    consumers: {
      type: 'object',
      additionalProperties: false,
      properties: {
        processes: int(1, 'Consumer processes in the group, named c1..cN. Default 1.', { default: 1 }),
        handler: { $ref: '#/$defs/time', default: { kind: 'constant', ms: 0 } },
        concurrency: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            // mode (and any fields of a mode's own): from the modes, harness/consumer/concurrency/modes/
            ...concurrencySchema(),
            workers: int(1, 'Messages handled at once per consumer process. Default 8.', { default: 8 }),
          },
        },
        // Issue 21: one branch per file in harness/consumer/strategies/.
        strategy: strategyFieldSchema(),
        poison: { $ref: '#/$defs/poison' },
        overrides: {
          type: 'object',
          description: 'Per-consumer settings by name (c1, c2...).',
          propertyNames: { pattern: '^c[1-9][0-9]*$' },
          additionalProperties: {
            type: 'object',
            additionalProperties: false,
            properties: { handler: { $ref: '#/$defs/time' } },
          },
        },
      },
    },
    fault: {
      type: 'object',
      description: "One fault. Kind-specific fields are checked against the fault kind's schema.",
      required: ['name', 'kind', 'atMs'],
      properties: {
        name: { ...name, description: 'Unique in the scenario; expectations refer to it.' },
        kind: { type: 'string', minLength: 1, description: 'A fault kind (harness/faults/).' },
        atMs: dur('Start, from the start of the measured phase (after the warm-up).'),
        durationMs: dur('How long it lasts. Default 0 (an instant).', { default: 0 }),
      },
      additionalProperties: true,
    },
    expectation: expectationSchema('0, ">0" or "any", alone or as { expect, during | before | after | outside: <fault name> }.', {
      during: { type: 'string', description: "Within the fault's window (plus run.settleMs)." },
      before: { type: 'string', description: 'Before the fault starts.' },
      after: { type: 'string', description: "After the fault's window (plus run.settleMs)." },
      outside: { type: 'string', description: "Anywhere but the fault's window." },
    }),
    // Issue 21: wrong-state's expectation, which may name the strategy it judges. The windows are
    // accepted here so that the loader can say why they make no sense (the final state has no time).
    stateExpectation: expectationSchema('0, ">0" or "any", alone or as { expect, strategy }.', {
      strategy: strategyNameSchema(),
      ...Object.fromEntries(WINDOW_KEYWORDS.map((k) => [k, { type: 'string', description: 'Not allowed: the final state has no time.' }])),
    }),
    expect: {
      type: 'object',
      description: `Expectations per anomaly type. Types left out: ${DEFAULT_EXPECT_ZERO.join(', ')} expect 0; the others any, but unseen left out bears on lost: lost 0 with unseen messages (acked, undelivered, still on the broker) is unknown, not a pass.`,
      additionalProperties: false,
      properties: Object.fromEntries(
        [...ANOMALY_TYPES, FINAL_STATE_EXPECTATION].map((t) => {
          const ref = { $ref: t === FINAL_STATE_EXPECTATION ? '#/$defs/stateExpectation' : '#/$defs/expectation' };
          return [t, { $comment: EXPECTATION_LIST_COMMENT, anyOf: [ref, { type: 'array', minItems: 1, items: ref }] }];
        }),
      ),
    },
    run: {
      type: 'object',
      additionalProperties: false,
      properties: {
        drainTimeoutMs: dur(
          "Caps the drain. By default the drain waits, without progress, as long as the broker can take to give a message back (its redelivery horizon from the broker settings: lock duration, visibility timeout, ack deadline, session timeout, max.poll.interval.ms) plus 5 s, and ends as soon as every acked message was processed or the broker holds nothing more. A cap shorter than the horizon leaves messages unseen; convoy validate warns.",
        ),
        giveUpDelayMs: dur(
          'Give up early: when the publish delay stays above this for 3 s (or the sending rate under half a fixed target) after the warm-up and outside fault windows, stop sending and end unknown. Default 2 s.',
          { default: 2_000 },
        ),
        maxDurationMs: dur(
          'Hard bound on the whole run, set-up to teardown. Default 5 min. A nightly scenario plans at most 90 s (warm-up + duration + drain) unless this says more.',
          { default: 300_000 },
        ),
        settleMs: dur('Anomalies within this long after a fault ends still count as during it. Default 1 s.', { default: 1000 }),
      },
    },
  },
} as const;

export const SCHEMA_FILE = fileURLToPath(new URL('./scenario.schema.json', import.meta.url));

/** The published file's text. */
export function schemaJson(): string {
  return JSON.stringify(scenarioSchema, null, 2) + '\n';
}


/** The plug-ins a scenario schema is built with (ScenarioCatalogue has them). */
export interface SchemaPlugins {
  strategies: ReadonlyMap<string, { description?: string; optionsSchema?: Record<string, unknown> }>;
  modes: ReadonlyMap<string, { description?: string }>;
}

/**
 * The scenario schema with the given strategies and concurrency modes as the allowed values
 * (each plug-in's description beside its name). With none given, the built-in lists stay.
 */
export function scenarioSchemaFor(plugins: SchemaPlugins): Record<string, unknown> {
  const s = structuredClone(scenarioSchema) as any;
  const choose = (at: Record<string, unknown>, choices: SchemaPlugins['strategies']) => {
    if (choices.size === 0) return;
    at.enum = [...choices.keys()];
    const said = [...choices].filter(([, c]) => c.description).map(([n, c]) => `${n}: ${c.description}`);
    if (said.length) at.description = `${said.join('; ')}. Default ${String(at.default)}.`;
  };
  if (plugins.strategies.size > 0) {
    // Each strategy brings its options: the one of this process's files under that name, else
    // the catalogue's own description and options schema.
    const chosen = new Map(
      [...plugins.strategies].map(([name, p]) => {
        const known = STRATEGIES.get(name);
        const options = (p.optionsSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
        return [name, known ?? ({ name, description: p.description ?? name, options } as unknown as ConsumerStrategy)];
      }),
    );
    s.$defs.consumers.properties.strategy = strategyFieldSchema(chosen);
    s.$defs.stateExpectation.oneOf[1].properties.strategy = strategyNameSchema(chosen);
  }
  choose(s.$defs.consumers.properties.concurrency.properties.mode, plugins.modes);
  return s;
}
