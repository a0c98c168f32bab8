/**
 * The scenario's one source (TypeBox): the JSON Schema (draft 2020-12) of a scenario file, and
 * through it the TypeScript types (types.ts: `Static<>` of a section for the file, `Resolved<>`
 * for what the runner sees after defaults, see schema-kit.ts). The parts a plug-in owns (the
 * concurrency modes, the strategies, the order service's modes) are placeholders here, marked
 * `convoy:plugin:<part>`, with the type the harness reads of them: harness/scenario/schema.ts
 * fills them from the registries, and that filled schema is the one validated against and
 * published (harness/scenario/scenario.schema.json). So the types sit below every plug-in.
 * Every object is closed (additionalProperties: false) so that a typo fails, except `broker` (checked against the broker module's own settingsSchema) and a
 * fault's kind-specific fields (checked against the fault kind's schema).
 *
 * Defaults are `default` keywords here and nowhere else: load.ts fills them in by walking the
 * schema (a defaulted property is written `filled(...)`, so its resolved type has it). A duration
 * is a number of milliseconds or a string with a unit; fields that take one refer to
 * #/$defs/duration (recognised by its $comment).
 */
import { Type } from '../typebox.ts';
import type { Static, TSchema, TUnsafe } from '@sinclair/typebox';
import { ANOMALY_TYPES, DEFAULT_EXPECTED_ZERO, WINDOW_RELATIONS, type WindowRelation } from '../checker/anomaly-types.ts';
import { schemaId } from '../schema-id.ts';
import { COUNT_BOUND_PATTERN } from '../checker/comparison.ts';
import { THRESHOLD_NAMES, thresholdText } from '../checker/thresholds.ts';
import type { GatewaySpec, StrategyOptions } from './plugin-parts.ts';
import {
  constant,
  durationRef,
  filled,
  list,
  map,
  object,
  oneOf,
  openObject,
  optional,
  ref,
  values,
  withPluginFields,
  type TDuration,
} from './schema-kit.ts';

export const DURATION_COMMENT = 'convoy:duration';
/** run.settleMs when a scenario leaves it out; `convoy check` on a bare history uses it too. */
export const DEFAULT_SETTLE_MS = 1000;
/** Marks a part a plug-in fills in (harness/scenario/schema.ts): `convoy:plugin:<part>`. */
export const PLUGIN_COMMENT = 'convoy:plugin:';
export type PluginPart = 'concurrency-mode' | 'strategy' | 'strategy-name' | 'gateway';
/** A placeholder for a plug-in's part, typed as the harness reads it. */
const plugin = <T>(part: PluginPart) => Type.Unsafe<T>({ $comment: `${PLUGIN_COMMENT}${part}` });
export const EXPECTATION_COMMENT = 'convoy:expectation';
/** An expectation's value (0, ">0", "any" or a count bound). */
export const EXPECT_VALUE_COMMENT = 'convoy:expect-value';
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
const Duration = Type.Unsafe(durationSchema) as TDuration;


/** Keys whose final state differs from the truth under the consumers' strategy. */
export const FINAL_STATE_EXPECTATION = 'wrong-state';
/** Order-service runs (workload.gateway): events given a version another event of their key already had. */
export const DUPLICATE_VERSIONS_EXPECTATION = 'duplicate-versions';

/** What each of the checker's window relations means here: a relation added there fails type checking until it is described. */
const WINDOW_TEXT = {
  during: "Within the fault's window (plus run.settleMs).",
  outside: "Anywhere but the fault's window.",
  before: 'Before the fault starts.',
  after: "After the fault's window (plus run.settleMs).",
} satisfies Record<WindowRelation, string>;
const perRelation = <T>(f: (r: WindowRelation) => T) => Object.fromEntries(WINDOW_RELATIONS.map((r) => [r, f(r)])) as Record<WindowRelation, T>;

const dur = (description: string) => durationRef({ description });
/** A duration with a default. */
const durOr = (description: string, value: number) => filled(durationRef({ description, default: value }));
const int = (minimum: number, description: string, extra: Record<string, unknown> = {}) => Type.Integer({ type: 'integer', minimum, description, ...extra });
const intOr = (minimum: number, description: string, extra: Record<string, unknown> & { default: number }) => filled(int(minimum, description, extra));
const num = (options: Record<string, unknown>) => Type.Number({ type: 'number', ...options });
const str = (options: Record<string, unknown> = {}) => Type.String({ type: 'string', ...options });
export const NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';
const name = (description: string) => str({ pattern: NAME_PATTERN, maxLength: 100, description });
const bytes = () => int(0, 'Bytes.', { maximum: 16 * 1024 * 1024 });

/** One branch of a union on `kind`: closed, `kind` first. */
function branch<K extends string, P extends Record<string, TSchema> = {}>(kind: K, description: string, properties: P = {} as P) {
  return object({ kind: constant(kind), ...properties }, { description, additionalProperties: false });
}

/** A union discriminated by `kind`. */
function union<T extends TSchema[]>(description: string, branches: [...T]) {
  return oneOf(branches, { type: 'object', description, discriminator: { propertyName: 'kind' } });
}

/** 0, ">0", "any", or a bound on the count (checker/comparison.ts): one node, so one message. */
const ExpectValue = Type.Unsafe<0 | '0' | '>0' | 'any' | (string & {})>({
  $comment: EXPECT_VALUE_COMMENT,
  type: ['string', 'integer'],
  pattern: `^(0|>0|any|${COUNT_BOUND_PATTERN.slice(1, -1)})$`,
  minimum: 0,
  maximum: 0,
  description: '0, ">0", "any", or a bound on the count: "<5", "<=3", ">=1".',
});
/** An expectation: a value, or an object with `expect` and the given fields. */
function expectation<P extends Record<string, TSchema>>(description: string, properties: P) {
  return oneOf([ExpectValue, object({ expect: ExpectValue, ...properties }, { additionalProperties: false })], { $comment: EXPECTATION_COMMENT, description });
}

const Distribution = union('How keys are drawn. Default uniform.', [
  branch('uniform', 'Every key equally likely.'),
  branch('zipf', 'Key of rank r (index r-1) with probability proportional to 1/r^s.', {
    s: filled(num({ exclusiveMinimum: 0, maximum: 10, default: 1, description: 'Exponent s. Default 1.' })),
  }),
  branch('hotspot', '`share` of the traffic on the first `hotKeys` keys, the rest uniform over the others.', {
    hotKeys: intOr(1, 'How many hot keys (fewer than keys.count). Default 1.', { default: 1 }),
    share: num({ minimum: 0, maximum: 1, description: 'Share of traffic on the hot keys, 0..1.' }),
  }),
  branch('single', 'Every message on key index 0.'),
  branch('round-robin', 'Message i on key index i mod count: every key in turn, so with `messages` = k x count each key gets exactly k messages, its k-th in the k-th round.'),
]);

const Rate = union('Open-loop send rate: message i is due at start + i/rate, whatever the acks do.', [
  branch('fixed', 'A constant rate.', { perSecond: num({ exclusiveMinimum: 0, description: 'Messages per second.' }) }),
  branch('steps', 'Piecewise constant: each step for its time, from the start of the warm-up; the last rate goes on (a last step of 0 ends the sending).', {
    steps: list(
      object(
        {
          perSecond: num({ minimum: 0, description: 'Messages per second in this step (0: a pause).' }),
          forMs: dur('How long this step lasts.'),
        },
        { additionalProperties: false },
      ),
      { minItems: 1 },
    ),
  }),
  branch('unlimited', 'As fast as the client takes messages (intended send time = actual).'),
]);

const Size = union('Payload size in bytes (never below the header, about 30 bytes plus names). Default fixed 256.', [
  branch('fixed', 'Every message the same size.', { bytes: bytes() }),
  branch('uniform', 'Uniform between min and max (inclusive).', { min: bytes(), max: bytes() }),
  branch('choice', 'One of the given sizes, by weight (equal weights by default).', {
    bytes: list(bytes(), { minItems: 1 }),
    weights: optional(list(num({ minimum: 0 }), { minItems: 1 })),
  }),
]);

const Time = union('A handler time distribution (milliseconds).', [
  branch('constant', 'Always the same.', { ms: dur('Handler time.') }),
  branch('uniform', 'Uniform between minMs and maxMs.', { minMs: dur('Shortest.'), maxMs: dur('Longest.') }),
  branch('exponential', 'Exponential with the given mean.', { meanMs: dur('Mean.') }),
]);

/** Broker settings another part overrides: the broker module's, left open here. */
const BrokerOverride = (description?: string) => Type.Unsafe<Record<string, unknown>>(description ? { type: 'object', description } : { type: 'object' });

/** Application code that sends a message again when its send seems to have failed (your own resends). */
const Resend = object(
  {
    ackTimeoutMs: optional(
      dur('Re-send when no ack came within this long (1 ms to 10 min); the first send stays pending and its ack is recorded when it comes. Absent: no timer.'),
    ),
    onUnknown: filled(
      Type.Boolean({ type: 'boolean', default: true, description: 'Re-send when the send fails with an unknown outcome (the client timed out, the connection dropped). Default true.' }),
    ),
    max: intOr(1, 'Re-sends per message at most (1..10). Default 1.', { maximum: 10, default: 1 }),
  },
  {
    description:
      'Re-send a message whose ack timed out or whose send ended unknown, as application code that calls send() again does: by then later messages of its key have gone out. Each re-send is a send of the same (key, producer, seq), recorded with `resend: n`.',
    additionalProperties: false,
  },
);

const Producer = object(
  {
    name: name("The logical writer (history `producer`); numbers its keys' messages. Keys are spread over producers by a stable hash."),
    processes: intOr(1, 'OS processes sending for this writer. Default 1.', { default: 1 }),
    sharedKeys: filled(
      Type.Boolean({
        type: 'boolean',
        default: false,
        description: 'false (default): each key is sent by one process (sharded by key hash). true: processes take messages round-robin, seq still from one counter.',
      }),
    ),
    broker: optional(BrokerOverride("Broker settings overriding the scenario's for this producer.")),
    processBroker: optional(
      list(BrokerOverride(), {}, { description: "Per process, in order: broker settings overriding the producer's (e.g. one process with another partitioner)." }),
    ),
    // The application's own re-sends: harness/roles/resend.ts.
    resend: optional(Resend),
  },
  { additionalProperties: false },
);

const Workload = object(
  {
    keys: filled(
      object(
        {
          count: intOr(1, 'How many keys (entities). Default 1000.', { maximum: 10_000_000, default: 1000 }),
          distribution: filled(ref('distribution', Distribution, { default: { kind: 'uniform' } })),
          prefix: filled(str({ maxLength: 100, default: 'k', description: 'Key names are <prefix><index>, index from 0. Default "k".' })),
          // Key splitting (harness/workload/split.ts).
          split: optional(
            int(2, 'Split each entity\'s key into this many sub-keys, <key>/<j>, taking its events in turn (where order is needed only at a finer grain, such as a match\'s events per innings). Lanes grow; order holds only within a sub-key; seq is numbered per sub-key; the final state and an entity-level order check are per entity. Default: not split.', { maximum: 1024 }),
          ),
        },
        { additionalProperties: false, default: {} },
      ),
    ),
    entity: filled(
      object(
        {
          kind: filled(
            values(['order', 'wallet', 'counter'], {
              default: 'order',
              description: 'order: PLACED, PAID, SHIPPED, DELIVERED, then address and note updates; wallet: credits and debits with the balance; counter: a count. Default order.',
            }),
          ),
          // Events that carry their change (harness/workload/changes.ts).
          events: filled(
            values(['state', 'change'], {
              default: 'state',
              description:
                'state: each message carries the whole state at its version (default). change: each carries only its change: orders PLACED {customer, city}, ADDRESS_CHANGED {city}, then PAID, SHIPPED, DELIVERED or CANCELLED (terminal), then notes; wallets signed amounts; counters increments.',
            }),
          ),
          cancelShare: filled(
            num({
              minimum: 0,
              maximum: 1,
              default: 0.25,
              description: 'Orders with change events: the share that is cancelled after its address change (chosen by a hash of the key). Default 0.25.',
            }),
          ),
        },
        { additionalProperties: false, default: {} },
      ),
    ),
    rate: ref('rate', Rate),
    size: filled(ref('size', Size, { default: { kind: 'fixed', bytes: 256 } })),
    durationMs: optional(dur('How long producers send after the warm-up (> 0).')),
    messages: optional(int(1, 'Stop after this many messages (warm-up included).')),
    warmupMs: durOr('Sending before measuring starts; excluded from the figures. Default 2 s.', 2000),
    maxInFlight: intOr(1, "Sends a producer process may have awaiting their ack (the client's buffer); beyond it the schedule waits, so a stalled broker shows up as publish delay. Default 10000.", {
      maximum: 1_000_000,
      default: 10_000,
    }),
    producers: filled(
      list(ref('producer', Producer), { minItems: 1 }, { default: [{ name: 'producer' }], description: 'Logical producers. Default one, named "producer", with one process.' }),
    ),
    // An order service under HTTP load instead of producers (harness/gateway/).
    gateway: optional(plugin<GatewaySpec>('gateway')),
  },
  { description: 'What is sent. Give durationMs, messages, or both (whichever comes first).', additionalProperties: false },
);

const Poison = object(
  {
    share: optional(num({ minimum: 0, maximum: 1, description: 'Share of messages, 0..1.' })),
    keys: optional(list(str(), {}, { description: 'Keys whose every message is poison.' })),
    policy: filled(
      values(['retry', 'dead-letter', 'park-key'], {
        default: 'retry',
        description: 'retry: block and retry with backoff, give up (dead-letter) after maxAttempts; dead-letter: at once; park-key: set it and every later message of its key aside. Default retry.',
      }),
    ),
    maxAttempts: intOr(1, 'retry: attempts before giving up. Default 5.', { maximum: 1000, default: 5 }),
    backoffMs: durOr('retry: wait before the 2nd attempt, doubling after (at most 30 s). Default 100 ms.', 100),
  },
  { description: 'Messages that fail every time: a seeded share, or every message of the given keys (or both).', additionalProperties: false },
);

/**
 * A team's own consumer under test (docs/consumer-under-test.md): convoy starts N processes of it
 * in place of its own consumer workers, and the service reports each message it handles.
 */
const Service = object(
  {
    command: list(str({ minLength: 1 }), { minItems: 1, description: "The service's program and its arguments, one process per consumer (c1..cN), run in `cwd` with the broker's connection and the report channel in its environment." }),
    build: optional(list(str({ minLength: 1 }), { minItems: 1, description: 'Run once before the processes start (compile the service), in `cwd` with the same environment. Default none.' })),
    cwd: optional(str({ minLength: 1, description: "The service's folder, relative to the scenario file. Default the scenario file's folder." })),
    env: optional(map(str(), { description: 'More environment for the service (and its build).' })),
    report: filled(values(['socket', 'file'] as const, { default: 'socket', description: 'How the service reports what it handled: newline-delimited JSON to the Unix socket named in CONVOY_REPORT_SOCKET (default), or appended to the file named in CONVOY_REPORT_FILE.' })),
    payload: optional(
      str({
        minLength: 1,
        description:
          'The message body the service reads, a template: {{key}}, {{seq}}, {{producer}} and {{run}} are replaced (JSON-escaped). Default {"key":"{{key}}","seq":{{seq}},"producer":"{{producer}}"}. convoy\'s own fields travel in headers (docs/consumer-under-test.md).',
      }),
    ),
    readyTimeoutMs: durOr('How long a process may take to report `ready` (its consumer joined). Default 60 s.', 60_000),
    state: optional(
      object(
        {
          command: optional(list(str({ minLength: 1 }), { minItems: 1, description: 'Run once after the drain, in `cwd` with the service\'s environment: prints its entities\' state as JSON, { "<key>": <version> } (or { "<key>": { "version": n } }).' })),
          url: optional(str({ pattern: '^https?://', description: 'Or: an HTTP endpoint of the service, asked once after the drain (GET); answers the same JSON.' })),
        },
        { additionalProperties: false, description: "The service's final state, compared with the truth by version (wrong-state judges it): a `command` or a `url`. Default: not compared." },
      ),
    ),
  },
  { additionalProperties: false },
);

const Consumers = object(
  {
    processes: intOr(1, 'Consumer processes in the group, named c1..cN. Default 1.', { default: 1 }),
    handler: filled(ref('time', Time, { default: { kind: 'constant', ms: 0 } })),
    concurrency: filled(
      withPluginFields(
        object(
          {
            // mode, and any fields of a mode's own (which the modes type, so they stay open here):
            // from the modes, harness/consumer/concurrency/modes/
            mode: filled(plugin<string>('concurrency-mode')),
            workers: intOr(1, 'Messages handled at once per consumer process. Default 8.', { default: 8 }),
          },
          { additionalProperties: false, default: {} },
        ),
      ),
    ),
    // One branch per file in harness/consumer/strategies/.
    strategy: filled(plugin<string | StrategyOptions>('strategy')),
    store: optional(
      values(['sqlite', 'postgres'] as const, {
        description:
          "Where the consumers' entity store lives: one SQLite file in the run's folder (default), or a PostgreSQL database the run starts from Debian's packages (what consumers on several hosts share; slower per message). Either way the analysis reads the run's state.sqlite.",
      }),
    ),
    poison: optional(ref('poison', Poison)),
    service: optional(ref('service', Service, { description: "A team's own consumer in place of convoy's (docs/consumer-under-test.md): its processes, how they report. The strategy, handler and concurrency then do not apply." })),
    overrides: optional(
      map(object({ handler: optional(ref('time', Time)) }, { additionalProperties: false }), {
        description: 'Per-consumer settings by name (c1, c2...).',
        propertyNames: { pattern: '^c[1-9][0-9]*$' },
      }),
    ),
  },
  { additionalProperties: false },
);

const Fault = openObject(
  {
    name: name('Unique in the scenario; expectations refer to it.'),
    kind: str({ minLength: 1, description: 'A fault kind (harness/faults/).' }),
    atMs: dur('Start, from the start of the measured phase: after the warm-up (workload.warmupMs, default 2 s).'),
    durationMs: durOr('How long it lasts. Default 0 (an instant).', 0),
  },
  { description: "One fault. Kind-specific fields are checked against the fault kind's schema." },
);

const window = (description: string) => optional(str({ description }));
const Expectation = expectation(
  `0, ">0" or "any", alone or as { expect, ${WINDOW_RELATIONS.join(' | ')}: <fault name> }.`,
  perRelation((r) => window(WINDOW_TEXT[r])),
);
// wrong-state's expectation, which may name the strategy it judges. The windows are
// accepted here so that the loader can say why they make no sense (the final state has no time).
const notAllowed = () => window('Not allowed: the final state has no time.');
const StateExpectation = expectation('0, ">0" or "any", alone or as { expect, strategy }.', {
  strategy: optional(plugin<string>('strategy-name')),
  ...perRelation(() => notAllowed()),
});

/** A threshold: a bound ("<200ms", ">=0.95 of target"), alone or with its scope. */
const ThresholdBound = str({ pattern: '^\\s*(<=|>=|<|>|=)', description: 'A comparison and a figure: "<200ms", "<=1.5s", ">=500/s", ">=0.95 of target".' });
const Threshold = oneOf([
  ThresholdBound,
  object({
    expect: ThresholdBound,
    whole: optional(Type.Unsafe<true>({ const: true, description: 'Judge the whole run, fault windows included.' })),
    ...perRelation((r) => window(WINDOW_TEXT[r])),
  }, { additionalProperties: false }),
], { description: 'A threshold, outside every fault window unless scoped.' });
type ThresholdValue = Static<typeof Threshold>;

/** One expectation of an anomaly type, as written: wrong-state's form is the wider one (the
 * windows of the others, and `strategy`), so it types them all. */
export type ExpectationValue = Static<typeof StateExpectation>;

const expectationList = (t: string) => {
  const one = { $ref: t === FINAL_STATE_EXPECTATION ? '#/$defs/stateExpectation' : '#/$defs/expectation' };
  return optional(Type.Unsafe<ExpectationValue | ExpectationValue[]>({ $comment: EXPECTATION_LIST_COMMENT, anyOf: [one, { type: 'array', minItems: 1, items: one }] }));
};
/** Expectations by anomaly type; the types are the checker's list, so this is typed as a record by type name. */
const Expect = Type.Unsafe<Record<string, ExpectationValue | ExpectationValue[]>>(
  object({
    ...Object.fromEntries([...ANOMALY_TYPES, FINAL_STATE_EXPECTATION].map((t) => [t, expectationList(t)])),
    // Thresholds: latency and throughput, outside fault windows unless scoped (checker/thresholds.ts).
    ...Object.fromEntries(THRESHOLD_NAMES.map((t) => [t, optional(Type.Unsafe<ThresholdValue | ThresholdValue[]>({
      description: thresholdText(t),
      anyOf: [{ $ref: '#/$defs/threshold' }, { type: 'array', minItems: 1, items: { $ref: '#/$defs/threshold' } }],
    }))])),
    [DUPLICATE_VERSIONS_EXPECTATION]: optional(
      Type.Unsafe<ExpectationValue>({ ...ExpectValue, description: 'Order-service runs (workload.gateway): events numbered with a version another event of their order already had (0, ">0" or "any"; the whole run). Default any.' }),
    ),
  }, {
    description: `Expectations per anomaly type. Types left out: ${DEFAULT_EXPECTED_ZERO.join(', ')} expect 0; the others any, but unseen left out bears on lost: lost 0 with unseen messages (acked, undelivered, still on the broker) is unknown, not a pass.`,
    additionalProperties: false,
  }),
) as TUnsafe<Record<string, ExpectationValue | ExpectationValue[]>> & { properties: Record<string, TSchema> };

const Run = object(
  {
    drainTimeoutMs: optional(
      dur(
        "Caps the drain. By default the drain waits, without progress, as long as the broker can take to give a message back (its redelivery horizon from the broker settings: lock duration, visibility timeout, ack deadline, session timeout, max.poll.interval.ms) plus 5 s, and ends as soon as every acked message was processed or the broker holds nothing more. A cap shorter than the horizon leaves messages unseen; convoy validate warns.",
      ),
    ),
    giveUpDelayMs: durOr(
      'Give up early: when the publish delay stays above this for 3 s (or the sending rate under half a fixed target) after the warm-up and outside fault windows, stop sending and end unknown. Default 2 s.',
      2_000,
    ),
    maxDurationMs: durOr(
      'Hard bound on the whole run, set-up to teardown. Default 5 min. A nightly scenario plans at most 90 s (warm-up + duration + drain) unless this says more.',
      300_000,
    ),
    settleMs: durOr('Anomalies within this long after a fault ends still count as during it. Default 1 s.', DEFAULT_SETTLE_MS),
  },
  { additionalProperties: false },
);

const AGENT_ADDRESS = '^(here|(\\[[0-9a-fA-F:]+\\]|[^:\\s\\[\\]]+):[0-9]{1,5})$';
const agentList = (role: string) =>
  optional(list(str({ pattern: AGENT_ADDRESS, description: 'A convoy agent, host:port (such as 10.0.0.2:7411), or `here`: this host takes its turn.' }), { description: `The agents that run the ${role}, in turn; none: here.`, minItems: 1 }));
const Placement = object(
  { producers: agentList('producers'), consumers: agentList('consumers') },
  {
    additionalProperties: false,
    description:
      "Which convoy agents run the producers and the consumers (docs/agents.md); an agent named for both takes both. `--agent` on the command line replaces this section. Consumers on several agents need consumers.store: postgres.",
  },
);

const Broker = openObject(
  { kind: str({ minLength: 1 }) },
  { description: "The broker: `kind` names a folder under brokers/; the other fields are checked against that module's settingsSchema." },
);

/** The scenario's top level. `broker` and `workload` may come from the parent (`extends:`); the loader fills them and `name`. */
export const ScenarioFile = Type.Object(
  {
    extends: optional(
      str({
        minLength: 1,
        description:
          'A scenario file this one states the differences from (relative to this file). Mappings merge; `key: null` removes; a mapping of another `kind` and each expectation replace; faults and producers merge by name (`remove: true` drops one). See harness/scenario/extends.ts.',
      }),
    ),
    name: filled(name('Scenario name. Default: the file name without its extension.')),
    description: filled(str({ default: '', description: 'What the scenario shows. Default "".' })),
    seed: intOr(0, 'Seed for keys, sizes, poison choices and handler times. Default 1.', { maximum: Number.MAX_SAFE_INTEGER, default: 1 }),
    broker: filled(Broker),
    workload: filled(ref('workload', Workload)),
    consumers: filled(ref('consumers', Consumers, { default: {}, description: 'The consumer group. Default: one consumer with defaults.' })),
    faults: filled(list(ref('fault', Fault), { description: 'The fault timeline. Default none.' }, { default: [] })),
    expect: filled(ref('expect', Expect, { default: {} })),
    run: filled(ref('run', Run, { default: {} })),
    placement: optional(ref('placement', Placement)),
  },
  {
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
  },
);

/** The sections, for types.ts. */
export const Sections = { Distribution, Rate, Size, Time, Resend, Producer, Workload, Poison, Service, Consumers, Fault, Expectation, StateExpectation, Run, Broker, Placement };

/** The scenario schema with its plug-in parts still placeholders (harness/scenario/schema.ts fills them). */
export const specSchema = {
  ...ScenarioFile,
  $defs: {
    duration: Duration,
    distribution: Distribution,
    rate: Rate,
    size: Size,
    time: Time,
    producer: Producer,
    workload: Workload,
    poison: Poison,
    service: Service,
    consumers: Consumers,
    fault: Fault,
    expectation: Expectation,
    stateExpectation: StateExpectation,
    threshold: Threshold,
    expect: Expect,
    run: Run,
    placement: Placement,
  },
};
