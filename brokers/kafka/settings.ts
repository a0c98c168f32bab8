/**
 * The `broker:` section of a scenario for Kafka: its JSON Schema (strict: unknown keys are
 * errors, so typos never pass silently) and the defaults filled in by resolveSettings().
 * Settings one client cannot honour are rejected with a message naming the other client,
 * never silently ignored.
 */
import type { BrokerSettings } from '../../harness/broker/contract.ts';
import { InputError } from '../../harness/errors.ts';

export type KafkaClientKind = 'kafkajs' | 'confluent';
export type Partitioner = 'murmur2' | 'crc32';

export interface ProducerSettings {
  /** -1 (= all), 1 or 0. */
  acks: -1 | 0 | 1;
  idempotent: boolean;
  /** Produce requests in flight per broker connection. */
  maxInFlight: number;
  retries: number;
  /** confluent only (kafkajs sends each send() at once: 0). */
  lingerMs: number;
  /** confluent only: librdkafka batch.size in bytes. */
  batchSize?: number;
  requestTimeoutMs: number;
  /** confluent only: librdkafka message.timeout.ms, the bound on one send including retries. */
  deliveryTimeoutMs?: number;
  /** confluent only: librdkafka socket.timeout.ms (default requestTimeoutMs): when the client gives up on a request itself. */
  socketTimeoutMs?: number;
  /** confluent only: a fixed retry backoff (librdkafka retry.backoff.ms = retry.backoff.max.ms); default 100 growing to 2000. */
  retryBackoffMs?: number;
  /** confluent only: librdkafka debug contexts (e.g. "msg,protocol" or "eos"); their lines about errors, retries, leaders and the idempotent producer's epoch and sequence go to the producer's log. */
  debug?: string;
  partitioner: Partitioner;
}

export interface ConsumerSettings {
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  /** confluent only: the poll gap after which librdkafka leaves the group. */
  maxPollIntervalMs?: number;
  autoCommit: boolean;
  autoCommitIntervalMs: number;
  partitionsConsumedConcurrently: number;
  fromBeginning: boolean;
  /** How often the consumer refreshes topic metadata: when it sees new partitions. */
  metadataMaxAgeMs: number;
  /** confluent only: the library's node-rdkafka-style KafkaConsumer (native) or its KafkaJS-compatible layer. */
  api?: 'native' | 'kafkajs-layer';
}

export interface KafkaSettings extends BrokerSettings {
  kind: 'kafka';
  /** "latest" (the newest 4.x that resolves from Maven Central) or an exact 4.x.y. */
  version: string;
  nodes: 1 | 3;
  client: KafkaClientKind;
  topic: { partitions: number; replicationFactor: number; minInsyncReplicas: number };
  producer: ProducerSettings;
  consumer: ConsumerSettings;
  /** Extra server.properties for brokers convoy starts (local runtime), e.g. {"num.io.threads": 4}. */
  brokerConfig: Record<string, string | number | boolean>;
  /**
   * How the nodes of a local cluster reach each other: `direct` (default), or `proxied`, through
   * one Toxiproxy proxy per directed pair of nodes and listener (peer-links.ts), which lets the
   * `isolate` fault cut nodes off from their peers.
   */
  peerLinks: 'direct' | 'proxied';
  /**
   * The producers' and consumers' client in a process of its own, behind the client protocol
   * (docs/client-protocol.md): `command` is its program and arguments; without one, the chosen
   * Node `client` runs as the reference client. Absent: the client runs inside the worker.
   */
  clientProcess?: { command?: string[] };
}

const int = (minimum: number, description: string, maximum?: number) => ({ type: 'integer', minimum, ...(maximum !== undefined ? { maximum } : {}), description });

export const settingsSchema: Record<string, unknown> = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Kafka broker settings',
  type: 'object',
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'kafka' },
    version: { type: 'string', pattern: '^(latest|4\\.[0-9]+\\.[0-9]+)$', description: 'Apache Kafka 4.x version, or "latest" (default): the newest 4.x that resolves' },
    nodes: { enum: [1, 3], description: '1: one combined KRaft node (default); 3: a 3-node cluster on this host' },
    client: { enum: ['kafkajs', 'confluent'], description: 'kafkajs (default) or @confluentinc/kafka-javascript (librdkafka)' },
    clientProcess: {
      type: 'object',
      additionalProperties: false,
      description: "The client in a process of its own, speaking the client protocol (docs/client-protocol.md). command: its program and arguments; without one, `client` runs as convoy's reference client in a child process.",
      properties: { command: { type: 'array', minItems: 1, items: { type: 'string' } } },
    },
    topic: {
      type: 'object',
      additionalProperties: false,
      properties: {
        partitions: int(1, 'partitions of the run topic (default 3)', 10_000),
        replicationFactor: int(1, 'default: the node count', 3),
        minInsyncReplicas: int(1, 'default: 2 on 3 nodes, 1 on one', 3),
      },
    },
    producer: {
      type: 'object',
      additionalProperties: false,
      properties: {
        acks: { enum: [-1, 0, 1, 'all'], description: '-1/"all" (default), 1 or 0' },
        idempotent: { type: 'boolean', description: 'default false' },
        maxInFlight: int(1, 'requests in flight per connection (default 5; idempotence allows at most 5)', 1_000_000),
        retries: int(0, 'default 10', 2_147_483_647),
        lingerMs: int(0, 'confluent only (librdkafka linger.ms, default 5); kafkajs has no linger', 900_000),
        batchSize: int(1, 'confluent only (librdkafka batch.size, default 1000000)', 2_147_483_647),
        requestTimeoutMs: int(1, 'default 30000', 900_000),
        deliveryTimeoutMs: int(1, 'confluent only (librdkafka message.timeout.ms, default 120000)', 2_147_483_647),
        partitioner: { enum: ['murmur2', 'crc32'], description: 'murmur2 (Java-compatible, default) or crc32 (librdkafka consistent_random; confluent only)' },
        socketTimeoutMs: int(10, 'confluent only (librdkafka socket.timeout.ms: when the client gives up on a request; default requestTimeoutMs, at most 60100)', 300_000),
        retryBackoffMs: int(1, 'confluent only: librdkafka retry.backoff.ms and retry.backoff.max.ms, a fixed backoff (default 100 growing to 2000)', 300_000),
        debug: { type: 'string', pattern: '^[a-z,]*$', description: 'confluent only: librdkafka debug contexts, e.g. "msg,protocol"; the lines about errors and retries go to the producer log' },
      },
    },
    consumer: {
      type: 'object',
      additionalProperties: false,
      properties: {
        sessionTimeoutMs: int(1000, 'default 30000', 3_600_000),
        heartbeatIntervalMs: int(100, 'default 3000', 3_600_000),
        maxPollIntervalMs: int(1000, 'confluent only (default 300000): a handler blocked this long makes the member leave the group', 86_400_000),
        autoCommit: { type: 'boolean', description: 'commit the settled prefix every autoCommitIntervalMs (default true); false: after every settlement' },
        autoCommitIntervalMs: int(1, 'default 5000', 3_600_000),
        partitionsConsumedConcurrently: int(1, 'partitions handled in parallel by one consumer, one message at a time each in partition mode (default 1)', 1000),
        fromBeginning: { type: 'boolean', description: 'a new group starts at the earliest offset (default true)' },
        metadataMaxAgeMs: int(100, 'how often consumers refresh topic metadata, i.e. notice new partitions (default 300000, as the clients)', 86_400_000),
        api: {
          enum: ['native', 'kafkajs-layer'],
          description: "confluent only: the consumer on the library's node-rdkafka-style KafkaConsumer (native, default) or on its KafkaJS-compatible layer (kafkajs-layer: slower; for what only that layer does)",
        },
      },
    },
    peerLinks: {
      enum: ['direct', 'proxied'],
      description: 'how the nodes of a local cluster reach each other: direct (default), or proxied through one Toxiproxy proxy per directed pair of nodes (needed by the isolate fault)',
    },
    brokerConfig: {
      type: 'object',
      description: 'extra server.properties for brokers convoy starts (local runtime only)',
      additionalProperties: { type: ['string', 'number', 'boolean'] },
    },
  },
};

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks the schema's rules by hand (the scenario loader also runs the schema through ajv). */
function checkShape(value: unknown, schema: Record<string, unknown>, path: string, errors: string[]): void {
  const props = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (schema.type === 'object' || props) {
    if (!isObj(value)) {
      errors.push(`${path}: expected an object`);
      return;
    }
    if (props) {
      for (const [k, v] of Object.entries(value)) {
        const sub = props[k];
        if (!sub) {
          if (schema.additionalProperties === false) {
            errors.push(`${path}.${k}: unknown setting (allowed: ${Object.keys(props).join(', ')})`);
          }
          continue;
        }
        checkShape(v, sub, `${path}.${k}`, errors);
      }
    } else if (isObj(schema.additionalProperties)) {
      for (const [k, v] of Object.entries(value)) checkShape(v, schema.additionalProperties, `${path}.${k}`, errors);
    }
    return;
  }
  if ('const' in schema && value !== schema.const) errors.push(`${path}: must be ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value as never)) {
    errors.push(`${path}: ${JSON.stringify(value)} is not one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : schema.type ? [schema.type as string] : [];
  if (types.length) {
    const ok = types.some((t) =>
      t === 'integer' ? Number.isInteger(value) : t === 'number' ? typeof value === 'number' && Number.isFinite(value) : t === 'array' ? Array.isArray(value) : typeof value === t,
    );
    if (!ok) {
      errors.push(`${path}: expected ${types.join(' or ')}, got ${JSON.stringify(value)}`);
      return;
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) errors.push(`${path}: expected at least ${schema.minItems} item(s)`);
    if (isObj(schema.items)) value.forEach((v, i) => checkShape(v, schema.items as Record<string, unknown>, `${path}[${i}]`, errors));
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) errors.push(`${path}: must be >= ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) errors.push(`${path}: must be <= ${schema.maximum}`);
  }
  if (typeof value === 'string' && typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(value)) {
    errors.push(`${path}: "${value}" does not match ${schema.pattern}`);
  }
}

/**
 * Validates a scenario's broker section and fills in every default, so the result records
 * exactly what ran. Throws InputError (exit 2) listing every problem.
 */
export function resolveSettings(raw: BrokerSettings): KafkaSettings {
  const errors: string[] = [];
  checkShape(raw, settingsSchema, 'broker', errors);
  if (errors.length) throw new InputError('invalid Kafka broker settings', errors);
  const r = raw as Record<string, any>;
  const nodes = (r.nodes ?? 1) as 1 | 3;
  const client = (r.client ?? 'kafkajs') as KafkaClientKind;
  const p = (r.producer ?? {}) as Record<string, any>;
  const c = (r.consumer ?? {}) as Record<string, any>;
  const t = (r.topic ?? {}) as Record<string, any>;
  const confluent = client === 'confluent';

  const topic = {
    partitions: t.partitions ?? 3,
    replicationFactor: t.replicationFactor ?? nodes,
    minInsyncReplicas: t.minInsyncReplicas ?? (nodes >= 3 ? 2 : 1),
  };
  if (topic.replicationFactor > nodes && !r.external) {
    // External clusters may have more nodes; the deploy step checks against the real cluster.
  }
  if (topic.minInsyncReplicas > topic.replicationFactor) {
    errors.push(`broker.topic.minInsyncReplicas (${topic.minInsyncReplicas}) cannot exceed replicationFactor (${topic.replicationFactor})`);
  }

  const acks = p.acks === 'all' || p.acks === undefined ? -1 : (p.acks as 0 | 1 | -1);
  const idempotent = p.idempotent ?? false;
  const maxInFlight = p.maxInFlight ?? (idempotent && !confluent ? 1 : 5);
  const producer: ProducerSettings = {
    acks,
    idempotent,
    maxInFlight,
    retries: p.retries ?? 10,
    lingerMs: p.lingerMs ?? (confluent ? 5 : 0),
    requestTimeoutMs: p.requestTimeoutMs ?? 30_000,
    partitioner: p.partitioner ?? 'murmur2',
  };
  if (confluent) {
    producer.batchSize = p.batchSize ?? 1_000_000;
    producer.deliveryTimeoutMs = p.deliveryTimeoutMs ?? 120_000;
    if (p.socketTimeoutMs !== undefined) producer.socketTimeoutMs = p.socketTimeoutMs;
    if (p.debug) producer.debug = p.debug;
    if (p.retryBackoffMs !== undefined) producer.retryBackoffMs = p.retryBackoffMs;
  }
  if (idempotent && acks !== -1) errors.push('broker.producer.idempotent needs acks -1 ("all")');
  if (idempotent && maxInFlight > 5) errors.push('broker.producer.idempotent allows at most 5 requests in flight (maxInFlight <= 5)');
  if (idempotent && producer.retries < 1) errors.push('broker.producer.idempotent needs retries >= 1');

  const consumer: ConsumerSettings = {
    sessionTimeoutMs: c.sessionTimeoutMs ?? 30_000,
    heartbeatIntervalMs: c.heartbeatIntervalMs ?? 3_000,
    autoCommit: c.autoCommit ?? true,
    autoCommitIntervalMs: c.autoCommitIntervalMs ?? 5_000,
    partitionsConsumedConcurrently: c.partitionsConsumedConcurrently ?? 1,
    fromBeginning: c.fromBeginning ?? true,
    metadataMaxAgeMs: c.metadataMaxAgeMs ?? 300_000,
  };
  if (confluent) {
    consumer.maxPollIntervalMs = c.maxPollIntervalMs ?? 300_000;
    consumer.api = c.api ?? 'native';
  }
  if (consumer.heartbeatIntervalMs >= consumer.sessionTimeoutMs) {
    errors.push('broker.consumer.heartbeatIntervalMs must be lower than sessionTimeoutMs');
  }
  if (consumer.maxPollIntervalMs !== undefined && consumer.maxPollIntervalMs < consumer.sessionTimeoutMs) {
    errors.push('broker.consumer.maxPollIntervalMs must be >= sessionTimeoutMs (librdkafka refuses it otherwise)');
  }

  if (!confluent) {
    const onlyConfluent: [unknown, string][] = [
      [p.partitioner === 'crc32' ? true : undefined, 'broker.producer.partitioner crc32: kafkajs has only the Java-compatible murmur2 partitioner; use client: confluent (librdkafka consistent_random)'],
      [p.lingerMs ? true : undefined, 'broker.producer.lingerMs: kafkajs sends every send() at once and has no linger; use client: confluent'],
      [p.batchSize, 'broker.producer.batchSize: kafkajs has no batch size setting; use client: confluent'],
      [p.deliveryTimeoutMs, 'broker.producer.deliveryTimeoutMs: kafkajs has no delivery timeout (it retries `retries` times); use client: confluent'],
      [p.socketTimeoutMs, 'broker.producer.socketTimeoutMs: a librdkafka setting; kafkajs gives up on a request after requestTimeoutMs; use client: confluent'],
      [p.retryBackoffMs, 'broker.producer.retryBackoffMs: a librdkafka setting; use client: confluent'],
      [p.debug ? true : undefined, 'broker.producer.debug: librdkafka debug contexts; kafkajs has none (set it to "" or use client: confluent)'],
      [c.maxPollIntervalMs, 'broker.consumer.maxPollIntervalMs: kafkajs has no max.poll.interval.ms (a stalled handler is evicted after sessionTimeoutMs); use client: confluent'],
      [c.api, "broker.consumer.api: chooses between @confluentinc/kafka-javascript's consumer APIs; use client: confluent"],
    ];
    for (const [v, msg] of onlyConfluent) if (v !== undefined) errors.push(msg);
    if (idempotent && maxInFlight > 1) {
      errors.push('broker.producer.idempotent with kafkajs: kafkajs holds a lock per broker around every idempotent produce request, so at most 1 is in flight; set maxInFlight 1 or use client: confluent (up to 5)');
    }
  }
  if (errors.length) throw new InputError('invalid Kafka broker settings', errors);

  return {
    kind: 'kafka',
    version: r.version ?? 'latest',
    nodes,
    client,
    topic,
    producer,
    consumer,
    brokerConfig: (r.brokerConfig ?? {}) as Record<string, string | number | boolean>,
    peerLinks: (r.peerLinks ?? 'direct') as KafkaSettings['peerLinks'],
    ...(r.clientProcess ? { clientProcess: r.clientProcess as KafkaSettings['clientProcess'] } : {}),
  };
}

/** The settings as KafkaSettings, resolving them if a caller passed raw ones. */
export function asKafkaSettings(settings: BrokerSettings): KafkaSettings {
  const s = settings as Partial<KafkaSettings>;
  if (s.producer && s.consumer && s.topic && s.nodes && s.client && s.version) return s as KafkaSettings;
  return resolveSettings(settings);
}
