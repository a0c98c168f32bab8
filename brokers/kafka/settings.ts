/**
 * The `broker:` section of a scenario for Kafka: its JSON Schema (strict: unknown keys are
 * errors, so typos never pass silently) and the defaults filled in by resolveSettings().
 * Settings one client cannot honour are rejected with a message naming the other client,
 * never silently ignored.
 */
import type { BrokerSettings } from '../../harness/broker/contract.ts';
import { InputError } from '../../harness/errors.ts';
import { resolveShare, shareSchema, type ShareSettings } from './share-group.ts';
import { CLIENT_PRODUCER_DEFAULTS, CLIENT_SETTINGS, clientHas, CONVOY_PRODUCER_DEFAULTS, KAFKA_CLIENTS, type KafkaClientKind, type ProducerDefaults } from './client-defaults.ts';
export type { KafkaClientKind } from './client-defaults.ts';

export type GroupProtocol = 'classic' | 'consumer' | 'share';
export type Partitioner = 'murmur2' | 'crc32';

export interface ProducerSettings extends ProducerDefaults {
  /** -1 (= all), 1 or 0. */
  acks: -1 | 0 | 1;
  /** confluent only: librdkafka socket.timeout.ms (default requestTimeoutMs): when the client gives up on a request itself. */
  socketTimeoutMs?: number;
  /** confluent and java: a fixed retry backoff (retry.backoff.ms = retry.backoff.max.ms); default 100 growing to 2000 (librdkafka) or 1000 (java). */
  retryBackoffMs?: number;
  /** confluent only: librdkafka debug contexts (e.g. "msg,protocol" or "eos"); their lines about errors, retries, leaders and the idempotent producer's epoch and sequence go to the producer's log. */
  debug?: string;
  partitioner: Partitioner;
  /** java only: partitioner.ignore.keys, every record to the sticky partition whatever its key. */
  ignoreKeys?: boolean;
  /** java only: metadata.max.age.ms, when the producer notices new partitions (it cannot be asked to at once). */
  metadataMaxAgeMs?: number;
  /** Whose defaults fill what the scenario leaves out: convoy's, the same on every client (default), or the client's own. */
  defaults: 'convoy' | 'client';
}

export interface ConsumerSettings {
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  /** confluent and java: max.poll.interval.ms, the poll gap after which the member leaves the group. */
  maxPollIntervalMs?: number;
  autoCommit: boolean;
  autoCommitIntervalMs: number;
  partitionsConsumedConcurrently: number;
  fromBeginning: boolean;
  /** How often the consumer refreshes topic metadata: when it sees new partitions. */
  metadataMaxAgeMs: number;
  /** confluent only: the library's node-rdkafka-style KafkaConsumer (native) or its KafkaJS-compatible layer. */
  api?: 'native' | 'kafkajs-layer';
  /** java only: group.protocol, classic or consumer (the broker-driven protocol of Kafka 4), or a share group (KafkaShareConsumer). */
  groupProtocol?: GroupProtocol;
  /** groupProtocol share: the share group's settings (share-group.ts). */
  share?: ShareSettings;
  /** java only: the assignor (classic: client-side; consumer protocol: the broker's). */
  assignor?: string;
  /** java only: group.instance.id (static membership), one per consumer process: every process (true) or the ones named (c1, c2, ...). */
  staticMembership?: boolean | string[];
  /** java only: max.poll.records. */
  maxPollRecords?: number;
}

export interface KafkaSettings extends BrokerSettings {
  kind: 'kafka';
  /** "latest" (the newest 4.x that resolves from Maven Central) or an exact 4.x.y. */
  version: string;
  nodes: 1 | 3;
  client: KafkaClientKind;
  /** clusterDefaults: the scenario set neither replication setting; on an external cluster the topic then takes the cluster's defaults. */
  topic: { partitions: number; replicationFactor: number; minInsyncReplicas: number; clusterDefaults?: boolean };
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
  /** client java: the kafka-clients version (default: the broker's version, or the newest 4.x). */
  javaClient?: { version: string };
  /** Local runtime: a request proxy on the client links, for request faults (request-proxy.ts). */
  requestProxy: boolean;
}

/** The clients whose idempotent producer has one request in flight, and why. */
const ONE_IN_FLIGHT_WHEN_IDEMPOTENT: Partial<Record<KafkaClientKind, string>> = {
  kafkajs: 'kafkajs holds a lock per broker around every idempotent produce request',
  platformatic: '@platformatic/kafka sets its connections to one request at a time when idempotent (maxInflights 1)',
};

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
    client: {
      enum: [...KAFKA_CLIENTS],
      description: "kafkajs (default), confluent: @confluentinc/kafka-javascript (librdkafka), java: Apache Kafka's Java client (kafka-clients) in a process of its own behind the client protocol (needs a JDK), or platformatic: @platformatic/kafka (pure JavaScript)",
    },
    javaClient: {
      type: 'object',
      additionalProperties: false,
      description: 'client java only',
      properties: { version: { type: 'string', pattern: '^4\\.[0-9]+\\.[0-9]+$', description: "kafka-clients version (default: the broker's version; on an external cluster the newest 4.x)" } },
    },
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
        clusterDefaults: {
          type: 'boolean',
          description: "external runtime: create the topic with the cluster's default replication factor and min.insync.replicas (default: true when the scenario sets neither)",
        },
      },
    },
    producer: {
      type: 'object',
      additionalProperties: false,
      properties: {
        acks: { enum: [-1, 0, 1, 'all'], description: '-1/"all" (default), 1 or 0' },
        defaults: {
          enum: ['convoy', 'client'],
          description: "whose defaults fill what is left out: convoy (default: the same on every client: acks all, idempotence off, 5 in flight, 10 retries) or client (the client's own: the Java client's idempotence is on since 3.0, linger.ms 5 since 4.0)",
        },
        idempotent: { type: 'boolean', description: 'default false (defaults: client: java true, the others false); kafkajs and platformatic take 1 request in flight with it' },
        maxInFlight: int(1, 'requests in flight per connection (default 5; idempotence allows at most 5)', 1_000_000),
        retries: int(0, 'default 10 (defaults: client: kafkajs 5, platformatic 3, confluent and java 2147483647)', 2_147_483_647),
        lingerMs: int(0, 'confluent and java (default 5); kafkajs has no linger', 900_000),
        batchSize: int(1, 'confluent and java: batch.size in bytes (default: librdkafka 1000000, java 16384)', 2_147_483_647),
        requestTimeoutMs: int(1, 'default 30000 (defaults: client: platformatic 5000)', 900_000),
        deliveryTimeoutMs: int(1, 'confluent and java: the bound on one send, retries included (librdkafka message.timeout.ms, java delivery.timeout.ms; default 120000; defaults: client: librdkafka 300000)', 2_147_483_647),
        partitioner: { enum: ['murmur2', 'crc32'], description: 'murmur2 (Java-compatible, default; the Java client has only this one for keyed records) or crc32 (librdkafka consistent_random, its own default; confluent only)' },
        ignoreKeys: { type: 'boolean', description: 'java only: partitioner.ignore.keys, records go to the sticky partition whatever their key (default false)' },
        metadataMaxAgeMs: int(100, 'java and platformatic: metadata.max.age.ms (platformatic: metadataMaxAge), when the producer notices new partitions (default: java 300000, platformatic 5000)', 86_400_000),
        socketTimeoutMs: int(10, 'confluent only (librdkafka socket.timeout.ms: when the client gives up on a request; default requestTimeoutMs, at most 60100)', 300_000),
        retryBackoffMs: int(1, 'confluent, java and platformatic: retry.backoff.ms and retry.backoff.max.ms (platformatic: retryDelay), a fixed backoff (default 100 growing to 2000 in librdkafka, 1000 in java; platformatic 100, its own 1000)', 300_000),
        debug: { type: 'string', pattern: '^[a-z,]*$', description: 'confluent only: librdkafka debug contexts, e.g. "msg,protocol"; the lines about errors and retries go to the producer log' },
      },
    },
    consumer: {
      type: 'object',
      additionalProperties: false,
      properties: {
        sessionTimeoutMs: int(1000, 'default 30000 (the consumer group protocol: 45000)', 3_600_000),
        heartbeatIntervalMs: int(100, 'default 3000 (the consumer group protocol: 5000)', 3_600_000),
        maxPollIntervalMs: int(1000, 'confluent and java (default 300000): a handler blocked this long makes the member leave the group', 86_400_000),
        autoCommit: { type: 'boolean', description: 'commit the settled prefix every autoCommitIntervalMs (default true); false: after every settlement' },
        autoCommitIntervalMs: int(1, 'default 5000', 3_600_000),
        partitionsConsumedConcurrently: int(1, 'partitions handled in parallel by one consumer, one message at a time each in partition mode (default 1)', 1000),
        fromBeginning: { type: 'boolean', description: 'a new group starts at the earliest offset (default true)' },
        metadataMaxAgeMs: int(100, 'how often consumers refresh topic metadata, i.e. notice new partitions (default 300000, as the clients)', 86_400_000),
        api: {
          enum: ['native', 'kafkajs-layer'],
          description: "confluent only: the consumer on the library's node-rdkafka-style KafkaConsumer (native, default) or on its KafkaJS-compatible layer (kafkajs-layer: slower; for what only that layer does)",
        },
        groupProtocol: {
          enum: ['classic', 'consumer', 'share'],
          description: 'java only: group.protocol: classic (default; client-side assignors, session and heartbeat set by the client) or consumer (the broker-driven protocol; its session timeout and heartbeat are group configs, set through the admin API); or share: a share group of KafkaShareConsumers, several on one partition, each record acknowledged on its own (Kafka 4.2 on; settings in consumer.share)',
        },
        share: shareSchema,
        assignor: {
          enum: ['range', 'roundrobin', 'sticky', 'cooperative-sticky', 'uniform'],
          description: "java only: classic: range (default), roundrobin, sticky or cooperative-sticky; consumer protocol: the broker's uniform (default) or range",
        },
        staticMembership: {
          type: ['boolean', 'array'],
          items: { type: 'string', pattern: '^c[1-9][0-9]*$' },
          minItems: 1,
          description: 'java only: group.instance.id (static membership) for every consumer process (true), none (false, default), or the ones named ([c1], ...): a static member that comes back within its session timeout gets its partitions again without a rebalance',
        },
        maxPollRecords: int(1, 'java only: max.poll.records (default 500)', 1_000_000),
      },
    },
    requestProxy: {
      type: 'boolean',
      description: 'local runtime: put convoy\'s Kafka request proxy on the client links (behind Toxiproxy), so request faults can refuse, rewrite or hold single requests (default false; the request fault needs it)',
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

  const topic = {
    partitions: t.partitions ?? 3,
    replicationFactor: t.replicationFactor ?? nodes,
    minInsyncReplicas: t.minInsyncReplicas ?? (nodes >= 3 ? 2 : 1),
    clusterDefaults: (t.clusterDefaults ?? (t.replicationFactor === undefined && t.minInsyncReplicas === undefined)) as boolean,
  };
  if (topic.replicationFactor > nodes && !r.external) {
    // External clusters may have more nodes; the deploy step checks against the real cluster.
  }
  if (topic.minInsyncReplicas > topic.replicationFactor) {
    errors.push(`broker.topic.minInsyncReplicas (${topic.minInsyncReplicas}) cannot exceed replicationFactor (${topic.replicationFactor})`);
  }

  const acks = p.acks === 'all' || p.acks === undefined ? -1 : (p.acks as 0 | 1 | -1);
  const defaultsFrom = (p.defaults ?? 'convoy') as ProducerSettings['defaults'];
  const d = (defaultsFrom === 'client' ? CLIENT_PRODUCER_DEFAULTS : CONVOY_PRODUCER_DEFAULTS)[client];
  const idempotent = p.idempotent ?? d.idempotent;
  // kafkajs holds a lock per broker around every idempotent produce request, and
  // @platformatic/kafka sets its connections to one request at a time: 1 in flight.
  const oneInFlight = ONE_IN_FLIGHT_WHEN_IDEMPOTENT[client];
  const maxInFlight = p.maxInFlight ?? (idempotent && oneInFlight ? 1 : d.maxInFlight);
  const producer: ProducerSettings = {
    acks,
    idempotent,
    maxInFlight,
    retries: p.retries ?? d.retries,
    lingerMs: p.lingerMs ?? d.lingerMs,
    requestTimeoutMs: p.requestTimeoutMs ?? d.requestTimeoutMs,
    partitioner: p.partitioner ?? 'murmur2',
    defaults: defaultsFrom,
  };
  if (d.batchSize !== undefined) producer.batchSize = p.batchSize ?? d.batchSize;
  if (d.deliveryTimeoutMs !== undefined) producer.deliveryTimeoutMs = p.deliveryTimeoutMs ?? d.deliveryTimeoutMs;
  for (const k of ['socketTimeoutMs', 'retryBackoffMs', 'metadataMaxAgeMs', 'ignoreKeys'] as const) if (p[k] !== undefined) producer[k] = p[k];
  if (p.debug) producer.debug = p.debug;
  if (idempotent && acks !== -1) errors.push('broker.producer.idempotent needs acks -1 ("all")');
  if (idempotent && maxInFlight > 5) errors.push('broker.producer.idempotent allows at most 5 requests in flight (maxInFlight <= 5)');
  if (idempotent && producer.retries < 1) errors.push('broker.producer.idempotent needs retries >= 1');
  if (client === 'java' && producer.deliveryTimeoutMs !== undefined && producer.deliveryTimeoutMs < producer.lingerMs + producer.requestTimeoutMs) {
    errors.push(`broker.producer.deliveryTimeoutMs (${producer.deliveryTimeoutMs}) must be at least lingerMs + requestTimeoutMs (${producer.lingerMs + producer.requestTimeoutMs}): the Java client refuses it otherwise`);
  }

  // The consumer group protocol's own defaults are the group's: 45 s and 5 s (a share group's too).
  const consumerProtocol = client === 'java' && (c.groupProtocol === 'consumer' || c.groupProtocol === 'share');
  const brokerConfig = { ...((r.brokerConfig ?? {}) as Record<string, string | number | boolean>) };
  const share = resolveShare(c, { client, version: r.version ?? 'latest', javaClientVersion: r.javaClient?.version, brokerConfig }, errors);
  const consumer: ConsumerSettings = {
    sessionTimeoutMs: c.sessionTimeoutMs ?? (consumerProtocol ? 45_000 : 30_000),
    heartbeatIntervalMs: c.heartbeatIntervalMs ?? (consumerProtocol ? 5_000 : 3_000),
    autoCommit: c.autoCommit ?? true,
    autoCommitIntervalMs: c.autoCommitIntervalMs ?? 5_000,
    partitionsConsumedConcurrently: c.partitionsConsumedConcurrently ?? 1,
    fromBeginning: c.fromBeginning ?? true,
    metadataMaxAgeMs: c.metadataMaxAgeMs ?? 300_000,
  };
  if (clientHas(client, 'consumer.maxPollIntervalMs') && !share) consumer.maxPollIntervalMs = c.maxPollIntervalMs ?? 300_000;
  if (client === 'confluent') consumer.api = c.api ?? 'native';
  if (client === 'java') {
    consumer.groupProtocol = c.groupProtocol ?? 'classic';
    if (share) consumer.share = share;
    const assignor: string = c.assignor ?? (consumer.groupProtocol === 'consumer' ? 'uniform' : 'range');
    if (!share) consumer.assignor = assignor;
    if (!share) consumer.staticMembership = c.staticMembership ?? false;
    if (Array.isArray(consumer.staticMembership) && new Set(consumer.staticMembership).size !== consumer.staticMembership.length) {
      errors.push(`broker.consumer.staticMembership: ${JSON.stringify(consumer.staticMembership)} names a consumer twice`);
    }
    consumer.maxPollRecords = c.maxPollRecords ?? 500;
    const server = ['uniform', 'range'];
    if (consumer.groupProtocol === 'consumer' && !server.includes(assignor)) {
      errors.push(`broker.consumer.assignor ${assignor}: the consumer group protocol assigns on the broker (uniform or range); ${assignor} is a classic-protocol assignor`);
    }
    if (consumer.groupProtocol === 'classic' && assignor === 'uniform') {
      errors.push('broker.consumer.assignor uniform: a broker-side assignor of the consumer group protocol (groupProtocol: consumer); classic takes range, roundrobin, sticky or cooperative-sticky');
    }
  }
  if (consumer.heartbeatIntervalMs >= consumer.sessionTimeoutMs) {
    errors.push('broker.consumer.heartbeatIntervalMs must be lower than sessionTimeoutMs');
  }
  if (consumer.maxPollIntervalMs !== undefined && consumer.maxPollIntervalMs < consumer.sessionTimeoutMs && client === 'confluent') {
    errors.push('broker.consumer.maxPollIntervalMs must be >= sessionTimeoutMs (librdkafka refuses it otherwise)');
  }

  for (const only of CLIENT_SETTINGS) {
    if (only.clients.includes(client)) continue;
    const [section, key] = only.path.split('.') as [string, string | undefined];
    const value = key === undefined ? r[section] : (r[section] as Record<string, unknown> | undefined)?.[key];
    if (value === undefined || only.none?.includes(value)) continue;
    const has = only.clients.join(' or ');
    errors.push(`broker.${only.path}: ${only.why[client] ?? `not a setting of the ${client} client`}; use client: ${has}`);
  }
  if (p.partitioner === 'crc32' && client !== 'confluent') {
    errors.push(`broker.producer.partitioner crc32: ${({ java: 'the Java client', kafkajs: 'kafkajs', platformatic: '@platformatic/kafka' } as Record<string, string>)[client]} has only the murmur2 partitioner for keyed records; use client: confluent (librdkafka consistent_random)`);
  }
  if (client === 'java' && r.clientProcess) {
    errors.push('broker.clientProcess: client java always runs in a process of its own (convoy\'s Java client); leave clientProcess out, or name your own client there with client kafkajs or confluent');
  }
  if (idempotent && maxInFlight > 1 && oneInFlight) {
    errors.push(`broker.producer.idempotent with ${client}: ${oneInFlight}, so at most 1 is in flight; set maxInFlight 1 or use client: confluent or java (up to 5)`);
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
    brokerConfig,
    peerLinks: (r.peerLinks ?? 'direct') as KafkaSettings['peerLinks'],
    requestProxy: r.requestProxy ?? false,
    ...(r.clientProcess ? { clientProcess: r.clientProcess as KafkaSettings['clientProcess'] } : {}),
    ...(client === 'java' && r.javaClient?.version ? { javaClient: { version: r.javaClient.version as string } } : {}),
  };
}

/** The settings as KafkaSettings, resolving them if a caller passed raw ones. */
export function asKafkaSettings(settings: BrokerSettings): KafkaSettings {
  const s = settings as Partial<KafkaSettings>;
  if (s.producer && s.consumer && s.topic && s.nodes && s.client && s.version) return s as KafkaSettings;
  return resolveSettings(settings);
}
