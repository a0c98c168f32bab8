/**
 * The broker contract. Every broker convoy supports is one folder under brokers/<name>/ whose
 * index.ts default-exports a BrokerModule. The harness never names a broker: it loads the
 * module named by the scenario's `broker.kind` and talks to it only through these interfaces.
 *
 * Shape (after Jepsen's db/client split and OpenMessaging Benchmark's driver):
 *   deploy()    starts or locates the broker (runtime local | containers | external)
 *   admin()     creates and deletes the run's destinations; optional fault capabilities
 *   producer()  sends keyed messages and reports the ack
 *   consumer()  delivers messages with a lane and per-message settlement
 * Producers and consumers run in worker processes: they get the deployment's `endpoint`
 * (plain JSON) and the scenario's broker settings, never live objects.
 */

import type { Need } from '../runtime/requirements.ts';
import type { BrokerHost } from './in-process.ts';

/** Where brokers come from (`--runtime`): started here, in Docker, or the user's own. */
export const RUNTIME_KINDS = ['local', 'containers', 'external'] as const;
export type RuntimeKind = (typeof RUNTIME_KINDS)[number];

/** The broker section of a scenario. Each module publishes a JSON Schema for its own fields. */
export interface BrokerSettings {
  kind: string;
  [field: string]: unknown;
}

/** Names for a run's own destinations, so leftovers of earlier runs are never read. */
export interface RunNames {
  runId: string;
  /** A prefix safe for topic, queue and group names: `convoy-<runId>`. */
  prefix: string;
}

/** Connection facts for clients: plain JSON, passed to worker processes. */
export type Endpoint = Record<string, unknown>;

/** A Toxiproxy proxy sitting on a path clients use; network faults act on these. */
export interface NetworkLink {
  /** Stable name used by scenarios: `clients` (every client link), or `node-2`, ... */
  name: string;
  /** The Toxiproxy proxy names this link is made of (one per broker listener). */
  proxies: string[];
  toxiproxyUrl: string;
  /** Set on a link between two broker nodes (`from` dials `to`): what the isolate fault cuts. */
  peer?: { from: string; to: string; traffic: string };
}

/** One broker process (or container) of a deployment: what kill/restart faults act on. */
export interface BrokerNode {
  id: string;
  pid(): number | undefined;
  /** SIGKILL (hard crash) or SIGTERM (clean stop); resolves when the process is gone. */
  stop(signal: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  /** Start it again and wait until it is healthy. */
  start(): Promise<void>;
}

export interface Deployment {
  broker: string;
  runtime: RuntimeKind;
  endpoint: Endpoint;
  /** Versions for the result: broker build, emulator name, ... */
  versions: Record<string, string>;
  /**
   * External runtime: what the cluster said about itself (Kafka: cluster id, broker count, API
   * version ranges, finalized features; RabbitMQ: server properties; a managed service: its
   * endpoint's host), recorded as the result's versions.cluster. Never a credential.
   */
  cluster?: Record<string, unknown>;
  /** Set when the broker is an emulator, named in the result's environment section. */
  emulator?: { name: string; version: string; notes?: string };
  links: NetworkLink[];
  nodes: BrokerNode[];
  /** Files the result folder should keep (broker logs). */
  logFiles: string[];
  /** Stop what this deployment started (nothing, for external or reused brokers). */
  stop(): Promise<void>;
  /** The node that leads the broker's own consensus now (KRaft's active controller), if known. */
  consensusLeader?(): string | undefined;
  /** A broker living in the runner process (a test double): serves its workers' clients. */
  host?: BrokerHost;
  /**
   * A protocol-aware proxy on the client links that acts on single requests (the request fault),
   * when the settings asked for one: its control URL, and whether it still runs.
   */
  requestProxy?: { controlUrl: string; running(): boolean; tail(): string[] };
}

export interface DeployContext {
  runtime: RuntimeKind;
  /** Folder for this run's logs and data (results/<run-id>/brokers). */
  workDir: string;
  /** The shared cache for downloaded brokers and tools (~/.cache/convoy). */
  cacheDir: string;
  /** external runtime: what the user passed (bootstrap servers, URLs, TLS/SASL settings). */
  external?: Record<string, unknown>;
  /** `convoy brokers up`: leave the broker running after this process exits, and record it. */
  persistent?: boolean;
  /** Reuse a broker left running by `convoy brokers up` when its setup matches (default true). */
  reuse?: boolean;
  log(line: string): void;
  signal?: AbortSignal;
}

/** Optional capabilities are methods a module may leave out; faults check for them. */
export interface BrokerAdmin {
  createDestinations(): Promise<void>;
  /** What createDestinations makes ("topic convoy-…", "group convoy-…-group"): the external runs' ledger and `convoy clean --external` name them. */
  created?(): string[];
  deleteDestinations(): Promise<void>;
  close(): Promise<void>;
  /** Raise the partition (lane) count of the run's topic. */
  addPartitions?(total: number): Promise<void>;
  /** Move dead-lettered messages back to the main destination; resolves with how many. */
  redriveDeadLetters?(): Promise<number>;
  /** The lanes (partitions, queues) the run's destination has now. */
  lanes?(): Promise<string[]>;
  /** Broker-side evidence for the consumer group (generation, members, assignment). */
  describeConsumerGroup?(): Promise<Record<string, unknown>>;
  /** Broker-side evidence for replication (ISR per partition). */
  describeReplication?(): Promise<Record<string, unknown>>;
  /**
   * What the broker still holds for the run's destinations: queued, locked or unacked
   * messages, consumer-group lag, per lane where it can tell. Asked after the workers stopped
   * and committed, before the destinations are deleted; the answer decides `lost` against
   * `unseen` (harness/history/events.ts RemainingEvent). A broker that cannot tell says so
   * (known: false) rather than guessing.
   */
  remaining?(): Promise<RemainingReport>;
}

/** BrokerAdmin.remaining's answer. */
export interface RemainingReport {
  known: boolean;
  /** Messages held for the run; null when not known. */
  total: number | null;
  /**
   * The same per lane (partition, queue) where the broker tells lanes apart, named as the
   * producer's acks name them (SendAck.lane): an undelivered message whose acks name a lane
   * listed here is lost or unseen by that lane's count (and what `total` holds beyond the
   * lanes' sum, which may be any lane's), others by `total`.
   */
  lanes?: Record<string, number>;
  /**
   * Of `total`, what can still reach a consumer by itself (not dead-lettered or parked): the
   * drain ends early when this is 0. Absent: all of `total`.
   */
  deliverable?: number;
  /**
   * True when `total` is an exact count at this instant of every message the broker holds for
   * the run, handed-out-but-unsettled ones included (not an estimate such as SQS's approximate
   * counts, not a lag read from offsets committed later). With nothing held and every acked
   * message processed, nothing more can arrive: the drain ends at once instead of waiting for
   * quiet.
   */
  exact?: boolean;
  /** The broker's own figures behind the total (ready, unacked, lag, in flight, ...). */
  detail?: Record<string, unknown>;
  /** Why it is not known. */
  reason?: string;
}

export interface OutgoingMessage {
  key: string;
  payload: Buffer;
  /**
   * convoy's own fields beside the payload (a consumer under test reads them:
   * docs/consumer-under-test.md), as the broker's message headers, attributes or properties.
   * Absent in runs of convoy's own consumers.
   */
  headers?: Record<string, string>;
}

/** What the broker said about a write that succeeded. */
/** How sendCallback answers: `(null, ack)` when written, `(error)` as send() would reject. */
export type SendDone = (err: unknown, ack?: SendAck) => void;

export interface SendAck {
  /** Where the broker put it; named as BrokerAdmin.remaining names its lanes, when it reports them. */
  lane?: string;
  offset?: number;
}

/**
 * Thrown (rejected) by ProducerClient.send. `definite` is true only when the broker
 * guarantees nothing was written; a timeout or a dropped connection is not definite.
 */
export class SendFailure extends Error {
  constructor(message: string, readonly definite: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SendFailure';
  }
}

export interface ProducerOptions {
  /** Logical name of the producer process (for client ids). */
  id: string;
  /** Sends the worker leaves unanswered at most (the scenario's workload.maxInFlight). */
  maxInFlight?: number;
  log(line: string): void;
}

export interface ProducerClient {
  /** Sends one message; may be called again before earlier sends resolve (open loop). */
  send(message: OutgoingMessage): Promise<SendAck>;
  /**
   * send() without a promise: calls `done` once, with null and the ack, or with the error send()
   * would reject with. Optional; the producer worker uses it where a client has it, since a
   * promise, its two resolving functions and its reaction cost more than the native send at
   * tens of thousands of messages a second.
   */
  sendCallback?(message: OutgoingMessage, done: SendDone): void;
  /** Called by partition-increase faults: pick up new metadata now, if the client can. */
  refreshMetadata?(): Promise<void>;
  /** Errors the client met on requests and retried, by its own name for them, so far (where it can tell); a client in a process of its own answers when asked. */
  errorsSeen?(): Record<string, number> | Promise<Record<string, number>>;
  /**
   * Lets a key publish again after a failed send paused it (Pub/Sub's resumePublishing for an
   * ordering key). A publisher that sends the key's failed messages again, in order, calls it
   * first (the outbox relay); clients whose keys never pause have none.
   */
  resumeKey?(key: string): void;
  close(): Promise<void>;
}

/** How a consumer settles one delivery. */
export type Settlement =
  | 'ack' // done: commit / delete / complete
  | 'requeue' // failed: give it back for redelivery now
  | 'dead-letter' // failed for good: to the dead-letter destination, if any
  | 'release'; // do nothing: let the lock / visibility / session expire (redelivery later)

export interface Delivery {
  payload: Buffer;
  /** Partition, queue, message group, session or ordering key the message came from. */
  lane?: string;
  /** Position in the lane, where the broker has one. */
  offset?: number;
  /** How many times the broker says it delivered this message (1 = first time). */
  deliveryCount?: number;
  /**
   * Settle once. Cumulative-commit brokers commit only the settled prefix of a lane. An adapter
   * whose settlement took effect at once, with nothing left to fail, answers `SETTLED_AT_ONCE`
   * (the harness then goes on without waiting a turn for it).
   */
  settle(how: Settlement): Promise<void>;
}

/** What `Delivery.settle` answers when the settlement took effect before it returned. */
export const SETTLED_AT_ONCE: Promise<void> = Promise.resolve();

/** Membership changes the client observed, recorded as `rebalance` events. */
export interface ConsumerGroupEvent {
  phase: 'assigned' | 'revoked';
  lanes: string[];
  generation?: number;
}

export interface ConsumerOptions {
  /** Logical consumer name, unique in the run (c1, c2, ...). */
  id: string;
  /** Deliveries the client may hand out before earlier ones are settled. */
  maxInFlight: number;
  onGroupEvent?(event: ConsumerGroupEvent): void;
  log(line: string): void;
  /**
   * Makes everything handled so far durable (store writes, history records). A client whose
   * `commitsLater` is true calls it, synchronously, before each time it tells the broker of
   * settlements (a Kafka offset commit).
   */
  beforeCommit?(): void;
  /**
   * Told after each renewal of a delivery's lock or lease by the delivery gate (a held message
   * is renewed until it is settled): the adapter passes it to its gate, the harness counts.
   */
  onRenewal?(ok: boolean): void;
}

/** The harness's side of a delivery: a promise of its handling (or its acceptance), or nothing when it was handled at once. */
export type OnDelivery = (delivery: Delivery) => Promise<void> | void;

export interface ConsumerClient {
  /**
   * Start delivering. The client awaits `onDelivery` before it hands out the next delivery of
   * the same lane (so a handler that never returns really stops the client's loop where the
   * broker's client works that way, e.g. librdkafka's max.poll.interval.ms). The harness
   * resolves `onDelivery` early when its concurrency mode allows more work in parallel, and
   * returns nothing (no promise) when the delivery was handled before it returned.
   */
  start(onDelivery: OnDelivery): Promise<void>;
  /** Resolves once the consumer holds at least one lane (or is ready to receive). */
  ready(timeoutMs: number): Promise<void>;
  /**
   * True when a settlement reaches the broker only later, after `options.beforeCommit` (Kafka
   * commits the settled prefix on a timer, on revocation and on close): the harness may then
   * settle a handled message before its effects and record are written, and write them as one
   * group. Otherwise each settlement is told at once and must follow its record.
   */
  readonly commitsLater?: boolean;
  close(): Promise<void>;
}

/** The containers runtime: the same topology, described once, rendered to compose. */
export interface ContainerService {
  name: string;
  image: string;
  command?: string[];
  environment?: Record<string, string>;
  ports: { container: number; host: number }[];
  healthcheck?: { test: string[]; intervalSeconds: number; retries: number };
  dependsOn?: string[];
}

/** One thing a module keeps in the shared cache: broker jars, an emulator's build. */
export interface CachedItem {
  what: string;
  path: string;
  present: boolean;
}

/**
 * One setting the external runtime takes: `--external <key>=v`, a connection file's `<key>:`, or
 * the environment variable CONVOY_EXTERNAL_<KEY> (harness/cli/connection.ts reads all three).
 */
export interface ExternalSetting {
  /** Dotted: `sasl.password` (nested under `sasl` in what deploy() is given). */
  key: string;
  /** What it is, in a few words (error messages, docs/external.md). */
  help: string;
  /** A secret (password, key, token, a URL or connection string that carries one): redacted everywhere; a literal on the command line draws a warning. */
  secret?: boolean;
  /** Another name of that setting: accepted, but not read from the environment. */
  aliasOf?: string;
  /** The scenario's `broker.<key>` stands in for it on the external runtime (ignored, with a warning, on the local one). */
  scenarioField?: boolean;
  /** Any key under it (`librdkafka.socket.keepalive.enable`) is taken and handed to the broker as is; none is read from the environment. */
  passThrough?: boolean;
}

export interface BrokerModule {
  /** The folder name, and the scenario's `broker.kind`. */
  name: string;
  /** How people name it (docs/coverage.md's broker column): "Kafka", "Service Bus". */
  title: string;
  /**
   * The npm packages of its clients: their versions go into every result and the dashboard.
   * Read by the registry from the broker folder's own package.json (an npm workspace), never
   * declared twice.
   */
  clients: string[];
  /** A test double (the memory broker): for fast tests of the harness, never a broker to judge. */
  testDouble?: boolean;
  /** The runtimes it can be deployed on (default every one); the scenario loader refuses the others. */
  runtimes?: RuntimeKind[];
  /** The settings its external runtime reads (DeployContext.external); absent: it has no external runtime. */
  externalSettings?: readonly ExternalSetting[];
  /**
   * Bad external settings as InputError (one line, exit 2) before anything runs: a value the
   * broker cannot take, or, given a scenario's (resolved) settings, what its client cannot do
   * (a broker may ask the cluster then: RabbitMQ checks a queue made beforehand).
   */
  checkExternal?(external: Record<string, unknown>, settings?: BrokerSettings): void | Promise<void>;
  /** What the broker can do with these (resolved) settings on this runtime (see BrokerCapabilities). */
  capabilities?(settings: BrokerSettings, runtime: RuntimeKind): BrokerCapabilities;
  /** A JSON Schema (draft 2020-12 subset) for the broker section of a scenario. */
  settingsSchema: Record<string, unknown>;
  /** Programs and packages the local runtime needs (installed or checked by `convoy setup`). */
  requirements?: Need[];
  /** Download or build what the local runtime needs into the cache (`convoy setup`, first use). */
  provision?(log: (line: string) => void): Promise<void>;
  /** What provision puts in the cache, and whether it is there (for `convoy doctor`). */
  cached?(): CachedItem[];
  /** Fill in defaults the scenario left out; the result records the resolved settings. */
  resolveSettings(settings: BrokerSettings): BrokerSettings;
  deploy(ctx: DeployContext, settings: BrokerSettings): Promise<Deployment>;
  /** Services for the containers runtime (docker-compose.yml and testcontainers). */
  containerServices(settings: BrokerSettings): ContainerService[];
  admin(endpoint: Endpoint, settings: BrokerSettings, names: RunNames): Promise<BrokerAdmin>;
  /**
   * The longest time, in ms, this broker can take under these (resolved) settings to give a
   * message back to a consumer: lock duration, visibility timeout, ack deadline, session
   * timeout, max.poll.interval.ms. The drain waits this long (plus a margin) by default.
   */
  redeliveryHorizonMs?(settings: BrokerSettings): number;
  /** The broker setting that sets that horizon under these settings (`broker.consumer.maxPollIntervalMs`), for the warning that names its fix. */
  redeliveryHorizonSetting?(settings: BrokerSettings): string;
  /**
   * Client libraries that are not npm packages (the Java client, in a process of its own) and
   * their versions under these settings: the result records them beside the npm clients'.
   */
  processClientVersions?(settings: BrokerSettings): Record<string, string>;
  /**
   * The client these settings run (a package of `clients`, or one of processClientVersions'):
   * the result names it, and benchmark figures carry its version. Absent: the first of `clients`.
   */
  clientInUse?(settings: BrokerSettings): string;
  /**
   * Settings that name consumer processes (c1, c2, ...), each with its path from `broker.`: the
   * scenario loader refuses a name beyond consumers.processes.
   */
  consumerNames?(settings: BrokerSettings): { path: string; names: string[] }[];
  /** A consumer under test (consumers.service) on this broker; absent: it cannot run one yet. */
  service?: ServiceLink;
  producer(
    endpoint: Endpoint,
    settings: BrokerSettings,
    names: RunNames,
    options: ProducerOptions,
  ): Promise<ProducerClient>;
  consumer(
    endpoint: Endpoint,
    settings: BrokerSettings,
    names: RunNames,
    options: ConsumerOptions,
  ): Promise<ConsumerClient>;
}

/**
 * What a consumer under test (a team's own service, docs/consumer-under-test.md) needs of the
 * broker: the environment that connects it to the run's destination, and the run's name for a
 * lane it reports (a Kafka partition number).
 */
export interface ServiceLink {
  /**
   * Every variable env() may set, with what it holds (one line): docs/consumer-under-test.md is
   * checked against these, and env() setting another is a harness bug.
   */
  variables: Readonly<Record<string, string>>;
  /** Environment variables for the service's processes (and its build), e.g. KAFKA_BOOTSTRAP_SERVERS. */
  env(endpoint: Endpoint, settings: BrokerSettings, names: RunNames, log: (line: string) => void): Record<string, string>;
  /** The lane a report's `lane` names, as acks name it. */
  lane(reported: string): string;
}

/** What a broker folder's index.ts default-exports; the registry adds `clients` from its package.json. */
export type BrokerDefinition = Omit<BrokerModule, 'clients'>;

// ---------------------------------------------------------------------------------------------
// Static capabilities: what a broker can do with the scenario's settings on a runtime, known
// before anything starts, so `convoy validate` and `convoy run` refuse a fault that could
// not happen (fault kinds check their specs against these; harness/scenario/static-check.ts).

/** `true`, or one line saying why not. */
export type Capability = true | string;

export interface BrokerCapabilities {
  /** Broker nodes convoy starts on this runtime and can stop and start again (kill-broker). */
  nodes: string[];
  /** Toxiproxy links the deployment will have (network faults). */
  links: string[];
  /** The run's destination can gain lanes (add-partitions). */
  addPartitions: Capability;
  /** Lanes the run's destination starts with, where the settings fix them. */
  lanes?: number;
  /**
   * Consumers notice lanes added mid-run only this long after (a periodic metadata refresh),
   * and the setting that says so. Absent: at once.
   */
  newLanesSeenAfter?: { ms: number; setting: string };
  /** Dead-lettered messages can be moved back to the main destination (redrive). */
  redriveDeadLetters: Capability;
  /** Broker nodes can be cut off from each other while clients still reach them (isolate). Absent: no. */
  isolate?: Capability;
  /**
   * A producer's own re-sends (workload.producers[].resend) can happen: an ack can time out or a
   * send end unknown while the write may still succeed. Absent: yes.
   */
  resend?: Capability;
  /** Single requests can be refused, rewritten or held (the request fault). Absent: no. */
  requestFaults?: Capability;
}

