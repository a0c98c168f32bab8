/**
 * The `broker:` section of a scenario for `kind: rabbitmq`: its JSON Schema and its defaults.
 * Every field is optional in the YAML; resolveSettings() fills in the rest, and the result
 * records the resolved form.
 */
import { settingsChecker } from '../../harness/broker/settings-check.ts';
import type { BrokerSettings } from '../../harness/broker/contract.ts';
import { InputError } from '../../harness/errors.ts';

export type Topology = 'competing' | 'single-active' | 'hash-lanes';
export type QueueType = 'classic' | 'quorum';

export interface RabbitSettings extends BrokerSettings {
  kind: 'rabbitmq';
  /** RabbitMQ major.minor. Local runs use what apt installed (3.10); containers use the image tag. */
  version: string;
  /** Local runtime: nodes in one cluster (1: a single node). */
  nodes: number;
  /**
   * Local cluster: how the nodes reach each other (Erlang distribution). direct, or proxied
   * through one Toxiproxy proxy per directed pair of nodes (peer-links.ts), which lets the
   * `isolate` fault cut nodes off from their peers.
   */
  peerLinks: 'direct' | 'proxied';
  topology: Topology;
  /** hash-lanes: how many queues the consistent hash exchange spreads keys over. */
  lanes: number;
  queueType: QueueType;
  /** Durable queues and exchanges (quorum queues are always durable). */
  durable: boolean;
  /** Publish with delivery mode 2 (persistent). */
  persistent: boolean;
  /** basic.qos per consumer (per queue); absent: the consumer's maxInFlight. */
  prefetch?: number;
  confirms: {
    /** Publishes awaiting a broker confirm, per producer; send() waits for a free slot. */
    maxOutstanding: number;
    /** A send without a confirm after this long fails as indefinite (it may still be written). */
    timeoutMs: number;
  };
  deadLetter: {
    enabled: boolean;
    /** Dead-lettered messages wait here for ttlMs, then go back to the main queue (lane). */
    retryQueue?: { ttlMs: number };
    /** Deliveries after which a message is parked in the dead-letter queue (see README). */
    maxDeliveries?: number;
  };
  /** A handler that throws without settling: requeue (true) or dead-letter (false). */
  requeueOnError: boolean;
  /** AMQP heartbeat; a silent connection (a `timeout` toxic) is noticed after about twice this. */
  heartbeatSeconds: number;
  /** Clients reconnect by themselves after a dropped connection, with backoff up to this. */
  reconnect: { enabled: boolean; maxDelayMs: number };
  /**
   * Local runtime: right after declaring the run's destinations, flush the node's metadata to
   * disk (Mnesia's transaction log and every dets table, Ra's server registry among them).
   * RabbitMQ 3.10.8 writes both without syncing, so a node crash shortly after a declaration
   * can forget the queue, and with it confirmed messages (see README). true simulates queues
   * that existed long before the crash; false shows the raw behaviour.
   */
  syncMetadata: boolean;
  /** external runtime: the AMQP URL (amqp:// or amqps://), unless given on the command line. */
  url?: string;
  /** external runtime: TLS files (paths) and checks, passed to the client sockets. */
  tls?: { ca?: string; cert?: string; key?: string; passphrase?: string; servername?: string; rejectUnauthorized?: boolean };
}

const positiveInt = { type: 'integer', minimum: 1 } as const;

export const settingsSchema: Record<string, unknown> = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'RabbitMQ broker settings',
  type: 'object',
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'rabbitmq' },
    version: { type: 'string', pattern: '^3\\.[0-9]+$', description: 'major.minor; default 3.10' },
    nodes: { type: 'integer', minimum: 1, maximum: 5, description: 'local runtime: nodes in one cluster, each behind its own proxy on the clients link (default 1); quorum queues get a member on each' },
    peerLinks: {
      enum: ['direct', 'proxied'],
      description: 'how the nodes of a local cluster reach each other: direct (default), or proxied through one Toxiproxy proxy per directed pair of nodes (needed by the isolate fault; a node cut off from the majority pauses until it is healed)',
    },
    topology: {
      enum: ['competing', 'single-active', 'hash-lanes'],
      description: 'competing: one queue, many consumers; single-active: x-single-active-consumer; hash-lanes: consistent hash exchange into N single-active queues',
    },
    lanes: { ...positiveInt, maximum: 1000, description: 'hash-lanes queue count (default 4)' },
    queueType: { enum: ['classic', 'quorum'] },
    durable: { type: 'boolean' },
    persistent: { type: 'boolean' },
    prefetch: { ...positiveInt, maximum: 65535 },
    confirms: {
      type: 'object',
      additionalProperties: false,
      properties: { maxOutstanding: { ...positiveInt, maximum: 100000 }, timeoutMs: positiveInt },
    },
    deadLetter: {
      type: 'object',
      additionalProperties: false,
      properties: {
        enabled: { type: 'boolean' },
        retryQueue: { type: 'object', additionalProperties: false, required: ['ttlMs'], properties: { ttlMs: positiveInt } },
        maxDeliveries: positiveInt,
      },
    },
    requeueOnError: { type: 'boolean' },
    syncMetadata: { type: 'boolean' },
    heartbeatSeconds: { type: 'integer', minimum: 0, maximum: 600 },
    reconnect: {
      type: 'object',
      additionalProperties: false,
      properties: { enabled: { type: 'boolean' }, maxDelayMs: positiveInt },
    },
    url: { type: 'string', pattern: '^amqps?://' },
    tls: {
      type: 'object',
      additionalProperties: false,
      properties: {
        ca: { type: 'string' },
        cert: { type: 'string' },
        key: { type: 'string' },
        passphrase: { type: 'string' },
        servername: { type: 'string' },
        rejectUnauthorized: { type: 'boolean' },
      },
    },
  },
};

/** Schema errors as "broker.<path>: message" lines, naming unknown keys and allowed values. */
export const settingsErrors = settingsChecker(settingsSchema);

/** Validates against the schema, then fills in defaults. Throws InputError on bad input. */
export function resolveSettings(input: BrokerSettings): RabbitSettings {
  const errors = settingsErrors(input);
  if (errors.length) throw new InputError('invalid RabbitMQ broker settings', errors);
  const s = input as Partial<RabbitSettings> & { kind: 'rabbitmq' };
  const queueType = s.queueType ?? 'classic';
  if (queueType === 'quorum' && s.durable === false) {
    throw new InputError('invalid RabbitMQ broker settings', ['broker.durable: quorum queues are always durable; remove durable: false or use queueType: classic']);
  }
  const topology = s.topology ?? 'single-active';
  const deadLetter = { enabled: s.deadLetter?.enabled ?? Boolean(s.deadLetter?.retryQueue), ...s.deadLetter };
  if (deadLetter.retryQueue && !deadLetter.enabled) {
    throw new InputError('invalid RabbitMQ broker settings', ['broker.deadLetter.retryQueue: needs deadLetter.enabled: true']);
  }
  const resolved: RabbitSettings = {
    kind: 'rabbitmq',
    version: s.version ?? '3.10',
    nodes: s.nodes ?? 1,
    peerLinks: s.peerLinks ?? 'direct',
    topology,
    lanes: topology === 'hash-lanes' ? (s.lanes ?? 4) : 1,
    queueType,
    durable: queueType === 'quorum' ? true : (s.durable ?? true),
    persistent: s.persistent ?? true,
    confirms: { maxOutstanding: 1000, timeoutMs: 30_000, ...s.confirms },
    deadLetter,
    requeueOnError: s.requeueOnError ?? true,
    syncMetadata: s.syncMetadata ?? true,
    heartbeatSeconds: s.heartbeatSeconds ?? 5,
    reconnect: { enabled: true, maxDelayMs: 2_000, ...s.reconnect },
  };
  if (s.prefetch !== undefined) resolved.prefetch = s.prefetch;
  if (s.url !== undefined) resolved.url = s.url;
  if (s.tls !== undefined) resolved.tls = s.tls;
  return resolved;
}
