/**
 * The result's one source (TypeBox): the envelope every result.json has (run identity, verdict,
 * anomalies, expectations, the check) and the sections a run adds (workload, latency, timeline,
 * environment, harness, source). The published JSON Schema results/schema/result.v1.json is
 * generated from it (harness/schemas/publish.ts) and the TypeScript types are derived from it:
 * the report's view (harness/report/view.ts) and the run summary read these types, not casts.
 * Sections stay open (later versions add fields); older results may lack newer fields.
 */
import { Type } from '../typebox.ts';
import type { SchemaOptions, Static, TOptional, TSchema, TUnion } from '@sinclair/typebox';
import { ANOMALIES, ANOMALY_TYPES, type AnomalyType } from './anomaly-types.ts';
import { schemaId } from '../schema-id.ts';

/** JSON Schema `oneOf` (TypeBox's Union writes anyOf): exactly one branch, typed as their union. */
function oneOf<T extends TSchema[]>(schemas: [...T], options: SchemaOptions = {}) {
  return Type.Unsafe<Static<TUnion<T>>>({ ...options, oneOf: schemas });
}

// The envelope (convoy check writes it too).
const nullable = <T extends TSchema>(schema: T, options: SchemaOptions = {}) => Type.Union([schema, Type.Null()], options);

export const CountDef = Type.Integer({ minimum: 0 });
export const TimeDef = Type.Number({ description: "Microseconds on the run's monotonic clock." });

export const EventDef = Type.Object(
  {
    consumer: nullable(Type.String()),
    lane: nullable(Type.String()),
    offset: nullable(Type.Number()),
    start: TimeDef,
    end: nullable(Type.Number()),
    outcome: Type.Unsafe<'ok' | 'error' | null>({ enum: ['ok', 'error', null] }),
  },
  { additionalProperties: false },
);

export const ExampleDef = Type.Object({
  key: nullable(Type.String()),
  producer: Type.Optional(nullable(Type.String())),
  seq: Type.Optional(nullable(Type.Number())),
  at: TimeDef,
  note: Type.String(),
  event: Type.Optional(EventDef),
});

export const AnomalyDef = Type.Object(
  {
    count: CountDef,
    keys: CountDef,
    examples: Type.Array(ExampleDef),
    uncertain: Type.Optional(
      Type.Object(
        { count: CountDef, keys: CountDef, examples: Type.Array(ExampleDef) },
        {
          additionalProperties: false,
          description:
            "Anomalies of the type that hang on two times stamped on different hosts closer together than the hosts' clocks are known (reorder, regression, overlap): not in `count`; each example has `margin` and `uncertainty` (µs). Present only when there are any (v1.7).",
        },
      ),
    ),
  },
  { additionalProperties: false },
);

const ClockDef = Type.Object(
  {
    host: Type.String(),
    workers: Type.Array(Type.String()),
    measurements: CountDef,
    offsetUs: Type.Object({ first: Type.Number(), last: Type.Number() }, { description: "The host's clock minus the runner's, at the first and the last measurement." }),
    uncertaintyUs: Type.Number({ minimum: 0, description: 'The largest uncertainty of a measurement: two hosts\' times closer than their two uncertainties are not ordered.' }),
    driftPpm: nullable(Type.Number()),
    corrected: Type.Boolean({ description: 'false: the check read every time as stamped (--no-clock-correction).' }),
  },
  { additionalProperties: false },
);

export const ExpectationDef = Type.Object(
  {
    type: Type.String(),
    expected: Type.String({ pattern: '^(0|>0|any|(<=|>=|<|>|=)\\s*\\S.*)$', description: 'Counts: 0, >0, any or a bound ("<5"); thresholds: the bound as written ("<200ms", ">=0.95 of target").' }),
    window: oneOf([
      Type.Null(),
      Type.Object(
        {
          relation: Type.Unsafe<'during' | 'outside' | 'before' | 'after'>({ enum: ['during', 'outside', 'before', 'after'] }),
          fault: Type.String(),
        },
        { additionalProperties: false },
      ),
    ]),
    found: nullable(Type.Number({ minimum: 0, description: 'A count; for a threshold, the figure in its unit.' })),
    keys: nullable(Type.Integer({ minimum: 0 })),
    held: nullable(Type.Boolean()),
    source: Type.Unsafe<'default' | 'given'>({ enum: ['default', 'given'] }),
    strategy: Type.Optional(Type.String({ description: 'wrong-state: the consumer strategy whose final state was judged.' })),
    scope: Type.Optional(Type.String({ description: 'Thresholds: "outside faults" (the default), "whole run", or the window.' })),
    unit: Type.Optional(Type.Unsafe<'ms' | 'msg/s' | 'of target'>({ enum: ['ms', 'msg/s', 'of target'], description: 'Thresholds: the unit of expected and found.' })),
    note: Type.Optional(Type.String({ description: 'Thresholds: why it could not be judged (held null).' })),
  },
  { additionalProperties: false },
);

export const FaultDef = Type.Object(
  {
    name: Type.String(),
    kind: nullable(Type.String()),
    start: nullable(Type.Number()),
    end: nullable(Type.Number()),
    until: nullable(Type.Number()),
  },
  { additionalProperties: false },
);

const SourceDef = Type.Object(
  {
    file: Type.String(),
    files: Type.Array(Type.Object({ path: Type.String(), text: Type.String() }, { additionalProperties: false })),
  },
  {
    description:
      'Where the scenario came from (v1.2): the file as given and the text of it and of every file it extends (`extends:`), in that order. With `scenario` beside it a rerun needs neither file.',
    additionalProperties: false,
  },
);

const VersionsDef = Type.Object({
  convoy: Type.String(),
  node: Type.String(),
  brokers: Type.Record(Type.String(), Type.String()),
  clients: Type.Record(Type.String(), Type.String()),
  client: Type.Optional(Type.Object({ name: Type.String(), version: Type.String() }, { description: "The client the run's consumers and producers used (v1.5)." })),
  cluster: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        "External runtime: what the cluster said about itself (v1.6). Kafka: clusterId, brokers (the count), apiVersions ({api key: [min, max]}, the lowest max over the brokers) and features (finalized levels, metadata.version among them); RabbitMQ: serverProperties (product, version, cluster_name, ...); SQS, Service Bus and Pub/Sub report no version: endpoint (the host, never a credential).",
    }),
  ),
});

const VerdictDef = Type.Object(
  {
    status: Type.Unsafe<'pass' | 'fail' | 'unknown'>({ enum: ['pass', 'fail', 'unknown'] }),
    reasons: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);

/** Each anomaly type (anomaly-types.ts); one added in a later version is optional, so older results stay valid. */
type AnomaliesProps = { [K in AnomalyType]: (typeof ANOMALIES)[K] extends { since: string } ? TOptional<typeof AnomalyDef> : typeof AnomalyDef };
const AnomaliesDef = Type.Object(
  Object.fromEntries(ANOMALY_TYPES.map((t) => [t, 'since' in ANOMALIES[t] ? Type.Optional(AnomalyDef) : AnomalyDef])) as AnomaliesProps,
  {
    description: `Every anomaly type of the checker, zero counts included (${ANOMALY_TYPES.filter((t) => 'since' in ANOMALIES[t]).map((t) => `${t} since v${(ANOMALIES[t] as { since: string }).since}`).join(', ')}).`,
    additionalProperties: false,
  },
);

const RemainingDef = oneOf(
  [
    Type.Null(),
    Type.Object(
      {
        at: TimeDef,
        known: Type.Boolean(),
        total: oneOf([CountDef, Type.Null()]),
        lanes: oneOf([Type.Null(), Type.Record(Type.String(), CountDef)]),
      },
      { additionalProperties: false },
    ),
  ],
  {
    description:
      "What the broker still held for the run's destinations when the workers had stopped (the history's remaining event); null when the history has none (v1.1).",
  },
);

const CheckDef = Type.Object({
  history: nullable(Type.String()),
  settleMs: Type.Number({ minimum: 0 }),
  input: Type.Object({
    lines: CountDef,
    events: CountDef,
    ignored: CountDef,
    badLines: CountDef,
    badLineSamples: Type.Array(Type.Object({ line: Type.Integer({ minimum: 1 }), reason: Type.String() })),
    messages: CountDef,
    keys: CountDef,
    producers: CountDef,
    processEvents: CountDef,
  }),
  faults: Type.Array(FaultDef),
  remaining: Type.Optional(RemainingDef),
  clocks: Type.Optional(Type.Array(ClockDef, { description: "Other hosts' clocks against the runner's, from the history's clock events; absent for a history of one host (v1.7)." })),
});

const HarnessEnvelopeDef = Type.Object(
  {
    failure: Type.Optional(
      oneOf(
        [
          Type.Null(),
          Type.Object(
            { stage: Type.Union([Type.String(), Type.Null()]), reason: Type.String(), detail: Type.Optional(Type.Array(Type.String())) },
            { additionalProperties: false },
          ),
        ],
        {
          description:
            'Set when the run stopped on an error: the name of the run stage it stopped at (the stages of a run, in order, are in docs/architecture.md; setup means the machine lacked a requirement) and the one-line reason, with the lines that say more when there are any (a client process\'s last log lines). The verdict is then unknown.',
        },
      ),
    ),
    incomplete: Type.Optional(Type.Array(Type.String())),
  },
  { description: 'How the harness itself did: why a run is incomplete, its drain, its CPU, its workers.' },
);

export const ResultEnvelope = Type.Object(
  {
    schema: Type.Literal('convoy.result.v1'),
    runId: nullable(Type.String()),
    seed: Type.Union([Type.Integer(), Type.String(), Type.Null()]),
    scenario: nullable(Type.Record(Type.String(), Type.Unknown()), { description: 'The resolved scenario, secrets redacted.' }),
    source: Type.Optional(SourceDef),
    versions: VersionsDef,
    started: nullable(Type.String({ format: 'date-time' })),
    finished: nullable(Type.String({ format: 'date-time' })),
    verdict: VerdictDef,
    anomalies: AnomaliesDef,
    expectations: Type.Array(ExpectationDef),
    check: Type.Optional(CheckDef),
    harness: Type.Optional(HarnessEnvelopeDef),
  },
  { additionalProperties: Type.Record(Type.String(), Type.Unknown()) },
);

// The sections a run adds (harness/runner/analyze.ts). Open: unknown fields are kept.

const Latency = Type.Object(
  { count: Type.Number(), min: Type.Number(), mean: Type.Number(), p50: Type.Number(), p90: Type.Number(), p99: Type.Number(), p999: Type.Number(), p9999: Type.Number(), max: Type.Number(), unit: Type.Literal('us') },
  { description: 'A latency summary, µs (harness/metrics/histogram.ts).' },
);
export const CurvePoint = Type.Object({ percentile: Type.Number(), us: Type.Number() });

export const LatencySection = Type.Object({
  unit: Type.Optional(Type.Literal('us')),
  whole: Type.Optional(Type.Record(Type.String(), Latency)),
  curves: Type.Optional(Type.Record(Type.String(), Type.Array(CurvePoint))),
  outsideFaults: Type.Optional(Type.Record(Type.String(), Latency, { description: 'Each metric outside every fault window and its settle time (what thresholds judge by default).' })),
  publishDelayOutsideFaults: Type.Optional(Latency),
  phases: Type.Optional(Type.Array(Type.Intersect([
    Type.Object({ fault: Type.String(), kind: Type.String() }),
    Type.Partial(Type.Record(Type.Union([Type.Literal('before'), Type.Literal('during'), Type.Literal('after'), Type.Literal('outside')]), Type.Record(Type.String(), Latency))),
  ]))),
  encoded: Type.Optional(Type.Record(Type.String(), Type.String())),
  clockUncertaintyUs: Type.Optional(
    Type.Object(
      {
        endToEnd: Type.Number({ minimum: 0, description: 'How far an end-to-end latency between two hosts can be off (µs): the two hosts\' clock uncertainties together, the worst pair; 0 when consumers and producers shared a host.' }),
        producersOnSeveralHosts: Type.Optional(Type.Boolean({ description: 'The producers ran on several hosts: intended send times were left as stamped.' })),
      },
      { description: "Runs across hosts (v1.7): the figures' times are on the runner's clock, each host's mapped by its measured offset." },
    ),
  ),
});

const PerBucket = Type.Array(Type.Number());
export const SeriesSection = Type.Object({
  originUs: Type.Number(),
  bucketMs: Type.Number(),
  sent: PerBucket,
  acked: PerBucket,
  failed: Type.Optional(PerBucket),
  processed: PerBucket,
  errors: Type.Optional(PerBucket),
  backlog: PerBucket,
  endToEnd: Type.Array(Type.Union([Type.Object({ p50: Type.Number(), p99: Type.Number(), max: Type.Number() }), Type.Null()])),
});

export const TimelineSection = Type.Object({
  startUs: Type.Optional(Type.Number()),
  measureStartUs: Type.Optional(Type.Number()),
  endUs: Type.Optional(Type.Number()),
  series: Type.Optional(SeriesSection),
  faults: Type.Optional(Type.Array(Type.Object({ name: Type.String(), kind: Type.String(), startUs: Type.Optional(Type.Number()), endUs: Type.Optional(Type.Number()), error: Type.Optional(Type.String()), evidence: Type.Optional(Type.Unknown()), endEvidence: Type.Optional(Type.Unknown()) }))),
  windows: Type.Optional(Type.Array(FaultDef)),
  settleMs: Type.Optional(Type.Number()),
  anomalies: Type.Optional(Type.Array(Type.Object({ type: Type.String(), key: Type.Union([Type.String(), Type.Null()]), at: Type.Number() }))),
  anomaliesTotal: Type.Optional(Type.Number({ description: 'Occurrences in all (the list above may be capped).' })),
  rebalances: Type.Optional(Type.Number()),
  marks: Type.Optional(Type.Array(Type.Object({ name: Type.String(), at: Type.Number(), detail: Type.Optional(Type.Unknown()) }))),
});

/** A key whose final state differs from the truth, with the fields that differ. */
const WrongKey = Type.Object({
  key: Type.String(),
  expected: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  actual: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  fields: Type.Array(Type.String()),
});

/** One consumer strategy's final state against the truth (harness/consumer/replay.ts StrategyScore). */
export const FinalState = Type.Object({
  strategy: Type.String(),
  primary: Type.Boolean({ description: "The consumers' own strategy (the one wrong-state judges unless it names another)." }),
  mode: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('replay')], { description: 'live: run by the consumers; replay: scored after the run from the history.' })),
  effects: Type.Optional(Type.Record(Type.String(), Type.Number(), { description: 'What the strategy made of the applies: applied, skipped, rejected.' })),
  figures: Type.Optional(Type.Record(Type.String(), Type.Number(), { description: "The strategy's own counts (its `figures`, e.g. lww-timestamp's ties)." })),
  wrong: Type.Number(),
  right: Type.Optional(Type.Number()),
  keys: Type.Number(),
  unreachable: Type.Optional(Type.Number()),
  wrongKeys: Type.Optional(Type.Array(WrongKey)),
  wrongFields: Type.Optional(Type.Record(Type.String(), Type.Number(), { description: 'How many wrong keys each field is wrong in.' })),
  costs: Type.Optional(
    Type.Object(
      {
        consumers: Type.Number({ description: 'Consumer processes that reported.' }),
        counts: Type.Record(Type.String(), Type.Number(), { description: 'Summed over the consumers: held, released, alerts, fetches, ownerReads, ...' }),
        peaks: Type.Record(Type.String(), Type.Number(), { description: 'The highest over the consumers: peakHeld, peakHeldPerKey, peakRssBytes, ...' }),
        latency: Type.Record(Type.String(), Type.Unknown(), { description: 'Latency summaries, µs: addedLatency (held until applied), ownerRead, ...' }),
        derived: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Group-wide figures from the history: peakHeldTotal, heldPerSecond, ...' })),
      },
      { description: "The live strategy's costs, as its consumers measured them (harness/consumer/strategies/costs.ts); absent for replayed strategies and strategies that report none." },
    ),
  ),
});

/** The realised key distribution (harness/workload/skew.ts computes it). */
export const SkewReport = Type.Object({
  messages: Type.Number(),
  keysSeen: Type.Number({ description: 'Distinct keys that carried at least one message.' }),
  keys: Type.Number({ description: 'The key count the shares of "top 1%" are taken over.' }),
  top1: Type.Object({ key: Type.Union([Type.String(), Type.Null()]), share: Type.Number() }),
  top10: Type.Object({ share: Type.Number() }),
  top1Percent: Type.Object({ keys: Type.Number(), share: Type.Number() }),
  lanes: Type.Array(Type.Object({ lane: Type.String(), messages: Type.Number(), share: Type.Number(), keys: Type.Number(), topKey: Type.Union([Type.String(), Type.Null()]), topKeyShare: Type.Number() })),
  series: Type.Array(Type.Object({ rank: Type.Number(), share: Type.Number(), cumulative: Type.Number() })),
});

const ScopeRates = Type.Object(
  {
    seconds: Type.Number({ description: 'Seconds of the sending phase in the scope.' }),
    target: Type.Number({ description: 'Messages per second the open-loop schedule asked for.' }),
    sent: Type.Number({ description: 'Messages per second sent.' }),
    processed: Type.Number({ description: 'Messages per second handled (outcome ok).' }),
  },
  { description: 'Rates in one time scope of the sending phase (harness/metrics/rates.ts).' },
);
const RatesSection = Type.Object({
  fromUs: Type.Number(),
  toUs: Type.Number(),
  whole: ScopeRates,
  outsideFaults: ScopeRates,
  faults: Type.Array(Type.Object({ fault: Type.String(), before: ScopeRates, during: ScopeRates, after: ScopeRates, outside: ScopeRates })),
});

export const WorkloadSection = Type.Object({
  plannedMessages: Type.Optional(Type.Number()),
  sent: Type.Optional(Type.Number()),
  sentMeasured: Type.Optional(Type.Number()),
  ackedMeasured: Type.Optional(Type.Number()),
  targetRate: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  achievedRate: Type.Optional(Type.Number()),
  rates: Type.Optional(RatesSection),
  skew: Type.Optional(SkewReport),
  finalState: Type.Optional(Type.Union([Type.Record(Type.String(), FinalState), Type.Null()])),
});

/** Order-service runs (workload.gateway): harness/gateway/figures.ts. */
export const GatewaySection = Type.Object({
  mode: Type.String(),
  instances: Type.Number(),
  connections: Type.Number(),
  relays: Type.Number({ description: 'Outbox relays (0 in other modes).' }),
  duplicateVersions: Type.Union([
    Type.Object({
      count: Type.Number({ description: 'Events numbered with a version another event of their order already had.' }),
      keys: Type.Number(),
      events: Type.Number({ description: 'Distinct events the service published (a relay resend counts once).' }),
      examples: Type.Array(Type.Object({ key: Type.String(), version: Type.Number(), events: Type.Array(Type.Number()) })),
    }),
    Type.Null(),
  ]),
  requests: Type.Object({
    asked: Type.Number({ description: 'workload.rate: requests per second asked of autocannon.' }),
    achieved: Type.Union([Type.Number(), Type.Null()], { description: "Requests per second autocannon held: the median of its per-second answer counts (its total over its duration would count the last, partial second as whole)." }),
    sent: Type.Number(),
    ok: Type.Number(),
    failed: Type.Number(),
  }),
  http: Type.Record(Type.String(), Type.Unknown(), { description: "convoy's own HTTP latency (µs) per role (router, instance): arrival to response, HdrHistogram." }),
  autocannon: Type.Object({ summary: Type.Union([Type.Unknown(), Type.Null()]), limits: Type.Array(Type.String()) }),
  store: Type.Union([Type.Object({ orders: Type.Number(), events: Type.Number() }), Type.Null()], { description: "The service's store at the end: the truth of the final state." }),
});

export const EnvironmentSection = Type.Object({
  runtime: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  broker: Type.Optional(Type.String()),
  emulator: Type.Optional(Type.Union([Type.Object({ name: Type.String(), version: Type.String(), notes: Type.Optional(Type.String()) }), Type.Null()])),
  endpoint: Type.Optional(Type.Unknown()),
  host: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

const n = (description: string) => Type.Number({ description });
/** How the consumers handled the load (harness/metrics/consumer-costs.ts, hot-key.ts, hol-victims.ts). */
export const ConsumersSection = Type.Object(
  {
    mode: Type.String({ description: 'consumers.concurrency.mode.' }),
    strategy: Type.String({ description: "The consumers' own strategy." }),
    costs: Type.Object(
      {
        handled: n('Handling attempts that ended ok (conflated ones included).'),
        conflated: n('Of those, dropped unhandled because a newer message of their key superseded them (mode conflate).'),
        applied: n("Of those, handed to the consumers' strategy."),
        errors: n('Attempts that ended in an error.'),
        storeTransactions: n('Store transactions the applies took (a batch is one).'),
        messagesPerTransaction: n('applied / storeTransactions.'),
        transactionsPerMessage: n('storeTransactions / handled: store writes per message.'),
        handlerMsPerMessage: n('Handler time (start to end) per handled message, ms.'),
        perSecond: n('Handled messages per second between the first handler start and the last end.'),
      },
      { description: 'What the handling cost, from the history: the figures a defence is weighed by (the defences table reads them for the run\'s strategy and mode).' },
    ),
    hotKey: Type.Union([
      Type.Object({
        key: Type.String(),
        offeredPerSecond: n('Its messages written per second while sending.'),
        handledPerSecond: n('Offered less backlog growth.'),
        backlogGrowthPerSecond: n('Least-squares slope of its backlog over the whole seconds of sending.'),
        backlogMax: n('Most of its messages written and not yet handled at the end of a second.'),
        backlogAtEndOfSending: n('The same, in the second the last send fell in.'),
        oldestUnprocessedMsMax: n('Oldest age of a written, unhandled message of the key at the end of a second, ms.'),
        oldestUnprocessedMsAtEndOfSending: n('The same, in the second the last send fell in, ms.'),
      }),
      Type.Null(),
    ], { description: 'The busiest key of the measured phase; null when nothing was sent.' }),
    group: Type.Optional(
      Type.Object(
        {
          lanes: n('Lanes (partitions) seen in any assignment.'),
          assignments: n("`assigned` callbacks over every member."),
          revocations: n("Non-empty `revoked` callbacks over every member."),
          handovers: n('Lanes assigned to a member other than the one that held them last (live or dead).'),
          handoversFrom: Type.Record(Type.String(), Type.Number(), { description: 'Handovers per member the lanes were taken from.' }),
          unownedMs: n('Lane-milliseconds with no live owner in the measured phase, up to the last send.'),
          longestUnownedMs: n('The longest stretch one lane had no live owner, ms.'),
          list: Type.Array(Type.Object({ lane: Type.String(), from: Type.String(), to: Type.String(), at: Type.Number() }), { description: 'The first handovers (at most 50).' }),
          departures: Type.Array(
            Type.Object({
              fault: Type.String(),
              consumer: Type.String(),
              at: Type.Number(),
              lanes: n('Lanes the member held as it went.'),
              takenByOthers: n('Of those, the ones whose next owner was another member (not the member itself, back).'),
              backAfterMs: Type.Optional(n('When it was assigned again (lanes or none), ms after it went.')),
            }),
            { description: 'Per fault that ended a member (its process gone): a static member back within its session timeout keeps its lanes (takenByOthers 0).' },
          ),
        },
        { description: "Consumer groups: who owned which lane when, from the members' rebalance callbacks and the faults that ended a member (harness/metrics/group-ownership.ts). Absent when no member reported an assignment." },
      ),
    ),
    holVictims: Type.Optional(Type.Unknown({ description: 'Runs with poison messages: messages of other keys delayed behind a failing one (harness/metrics/hol-victims.ts).' })),
    redeliveries: Type.Optional(
      Type.Object(
        {
          byCount: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'Messages by the highest delivery count the broker reported ("1": never redelivered).' }),
          redelivered: Type.Integer({ minimum: 0, description: 'Messages delivered more than once.' }),
          neverApplied: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'Messages handled only with errors, by the delivery count of their last delivery: at the broker\'s delivery-count limit, ones it gave up on (a share group archives them).' }),
          neverAppliedKeys: Type.Integer({ minimum: 0 }),
        },
        { description: 'Runs whose client reports delivery counts (harness/metrics/redeliveries.ts).' },
      ),
    ),
  },
  { description: 'How the consumers handled the load: their mode and strategy, what it cost, the busiest key, head-of-line victims.' },
);

const CpuShare = Type.Object({ meanPercent: Type.Number(), samples: Type.Optional(Type.Number()) });
export const HarnessSection = Type.Object({
  ...(ResultEnvelope.properties.harness.properties),
  // The published v1.1 had a second `harness` entry with these (a duplicate key: parsers kept the other one).
  drain: Type.Optional(
    Type.Object({
      drained: Type.Boolean(),
      waitedMs: Type.Number({ minimum: 0 }),
      reason: Type.String(),
      endedBy: Type.Optional(Type.Unsafe<'processed' | 'broker-empty' | 'cap' | 'no-progress' | 'interrupted' | 'gave-up' | 'not-reached'>({
        description: 'What ended the drain (v1.1): every message processed, the broker reported nothing left, the cap, no progress past the horizon, an interruption, or a give-up.',
        enum: ['processed', 'broker-empty', 'cap', 'no-progress', 'interrupted', 'gave-up', 'not-reached'],
      })),
      horizonMs: Type.Optional(Type.Number({ minimum: 0, description: "The longest redelivery horizon of the run's broker settings plus the margin (v1.1)." })),
      capMs: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()], { description: 'run.drainTimeoutMs, null when the scenario sets none (v1.1).' })),
    }),
  ),
  gaveUp: Type.Optional(oneOf([Type.Null(), Type.Object({ atMs: Type.Number(), reason: Type.String() })], { description: 'Set when the run stopped sending early because its verdict was already unknown (v1.1).' })),
  worstLoopLagMs: Type.Optional(Type.Number()),
  cpu: Type.Optional(Type.Union([Type.Object({ host: Type.Object({ meanPercent: Type.Number(), cpus: Type.Number(), samples: Type.Number() }), workers: Type.Record(Type.String(), CpuShare) }), Type.Null()])),
  agents: Type.Optional(Type.Array(Type.Object({
    agent: Type.String({ description: 'host:port, as --agent gave it' }),
    host: Type.String({ description: 'The agent\'s host name' }),
    cores: Type.Integer({ minimum: 1 }),
    roles: Type.Array(Type.String(), { description: 'producers, consumers' }),
    workers: Type.Array(Type.String(), { description: 'The workers it ran' }),
    acked: Type.Number({ description: 'Sends of its producers the broker took' }),
    applied: Type.Number({ description: 'Messages its consumers handled' }),
    ackedPerSecond: Type.Number({ description: 'acked per second over the sending: from the start instant to the last send' }),
    cpuMeanPercent: Type.Number({ description: 'Its workers\' mean CPU use while the producers sent, summed (percent of one core)' }),
  }), { description: 'The convoy agents that ran some of the workers (docs/agents.md): each one\'s share (v1.1). Latency histograms come from the merged history of every host\'s workers: one histogram of all of them, not an average of each host\'s.' })),
}, { description: ResultEnvelope.properties.harness.description });

export const SourceSection = ResultEnvelope.properties.source;

/** The whole result: the envelope and the sections, in one schema. */
export const ResultSchema = Type.Object(
  {
    ...ResultEnvelope.properties,
    scenario: Type.Union(
      [Type.Object({ name: Type.Optional(Type.String()), description: Type.Optional(Type.String()), broker: Type.Optional(Type.Object({ kind: Type.Optional(Type.String()) })) }), Type.Null()],
      { description: ResultEnvelope.properties.scenario.description },
    ),
    workload: Type.Optional(WorkloadSection),
    consumers: Type.Optional(ConsumersSection),
    gateway: Type.Optional(GatewaySection),
    latency: Type.Optional(LatencySection),
    timeline: Type.Optional(TimelineSection),
    environment: Type.Optional(EnvironmentSection),
    harness: Type.Optional(HarnessSection),
  },
  { additionalProperties: Type.Object({}) },
);

export const resultSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: schemaId('result', 1),
  title: 'convoy result, version 1',
  description: "The result of a convoy run or check. Later versions add sections; none changes the meaning of an existing field. Unknown top-level sections must be objects. Added fields (v1.1): anomalies.unseen, check.remaining, harness.drain.endedBy/horizonMs/capMs and harness.gaveUp; results without them stay valid. Added in v1.2: source. Added in v1.3: consumers. Added in v1.4: gateway (order-service runs). Added in v1.6: versions.cluster (external runtime). Added in v1.7: anomalies.<type>.uncertain, check.clocks (runs across hosts).",
  ...ResultSchema,
};

export type ResultShape = Static<typeof ResultSchema>;
/** The envelope alone (what `convoy check` writes). */
export type EnvelopeShape = Static<typeof ResultEnvelope>;
export type WorkloadSection = Static<typeof WorkloadSection>;
export type SkewReport = Static<typeof SkewReport>;
export type LatencySection = Static<typeof LatencySection>;
export type TimelineSection = Static<typeof TimelineSection>;
export type SeriesSection = Static<typeof SeriesSection>;
export type CurvePoint = Static<typeof CurvePoint>;
export type EnvironmentSection = Static<typeof EnvironmentSection>;
export type HarnessSection = Static<typeof HarnessSection>;
export type ClockSection = Static<typeof ClockDef>;
export type ConsumersSection = Static<typeof ConsumersSection>;
export type GatewaySection = Static<typeof GatewaySection>;
export type SourceSection = Static<typeof SourceSection>;
