/**
 * The producer and consumer defaults of each Kafka client, written once: convoy's own (the
 * same on every client where the client has the setting, so clients compare under equal
 * settings), and each client's own (`broker.producer.defaults: client`: what a service that
 * sets nothing runs). Which settings each client has at all is `CLIENT_SETTINGS`.
 */
/**
 * The Kafka clients convoy drives, written once (the settings schema, the matrices, the tests
 * and `npm run bench -- kafka` take them from here): kafkajs, librdkafka and @platformatic/kafka in the worker, the Java
 * client in a process of its own.
 */
export const KAFKA_CLIENTS = ['kafkajs', 'confluent', 'java', 'platformatic'] as const;
export type KafkaClientKind = (typeof KAFKA_CLIENTS)[number];

/** Each client's npm package (or, for java, the Maven artifact): the name its version is recorded under. */
export const CLIENT_PACKAGES: Record<KafkaClientKind, string> = {
  kafkajs: 'kafkajs',
  confluent: '@confluentinc/kafka-javascript',
  java: 'kafka-clients',
  platformatic: '@platformatic/kafka',
};

/** The producer settings whose defaults differ by client (the rest of ProducerSettings in settings.ts). */
export interface ProducerDefaults {
  idempotent: boolean;
  /** Produce requests in flight per broker connection. */
  maxInFlight: number;
  retries: number;
  /** confluent and java (kafkajs sends each send() at once: 0). */
  lingerMs: number;
  /** confluent and java: batch.size in bytes. */
  batchSize?: number;
  requestTimeoutMs: number;
  /** confluent and java: message.timeout.ms / delivery.timeout.ms, the bound on one send including retries. */
  deliveryTimeoutMs?: number;
}

/** convoy's defaults: one behaviour on every client, whatever each library would choose. */
export const CONVOY_PRODUCER_DEFAULTS: Record<KafkaClientKind, ProducerDefaults> = {
  // kafkajs has no linger, batch size or delivery timeout; with idempotence it takes 1 in flight (settings.ts).
  kafkajs: { idempotent: false, maxInFlight: 5, retries: 10, lingerMs: 0, requestTimeoutMs: 30_000 },
  confluent: { idempotent: false, maxInFlight: 5, retries: 10, lingerMs: 5, batchSize: 1_000_000, requestTimeoutMs: 30_000, deliveryTimeoutMs: 120_000 },
  java: { idempotent: false, maxInFlight: 5, retries: 10, lingerMs: 5, batchSize: 16_384, requestTimeoutMs: 30_000, deliveryTimeoutMs: 120_000 },
  // @platformatic/kafka has no linger, batch size or delivery timeout; with idempotence it takes 1 in flight (settings.ts).
  platformatic: { idempotent: false, maxInFlight: 5, retries: 10, lingerMs: 0, requestTimeoutMs: 30_000 },
};

/** Each library's own defaults (its documentation's configuration tables). */
export const CLIENT_PRODUCER_DEFAULTS: Record<KafkaClientKind, ProducerDefaults> = {
  // kafkajs: retry.retries 5; maxInFlightRequests unlimited (no limit stands for it here).
  kafkajs: { idempotent: false, maxInFlight: 1_000_000, retries: 5, lingerMs: 0, requestTimeoutMs: 30_000 },
  // librdkafka: max.in.flight 1000000, message.send.max.retries INT32_MAX, message.timeout.ms 300000.
  confluent: { idempotent: false, maxInFlight: 1_000_000, retries: 2_147_483_647, lingerMs: 5, batchSize: 1_000_000, requestTimeoutMs: 30_000, deliveryTimeoutMs: 300_000 },
  // kafka-clients 4.x: enable.idempotence true (3.0), linger.ms 5 (4.0), retries INT32_MAX.
  java: { idempotent: true, maxInFlight: 5, retries: 2_147_483_647, lingerMs: 5, batchSize: 16_384, requestTimeoutMs: 30_000, deliveryTimeoutMs: 120_000 },
  // @platformatic/kafka 2.x (clients/base/options.js): maxInflights 5 per connection, retries 3, timeout 5000.
  platformatic: { idempotent: false, maxInFlight: 5, retries: 3, lingerMs: 0, requestTimeoutMs: 5_000 },
};

/**
 * Settings only some clients have: the path in the broker section, the clients that have it,
 * and what to say to a scenario that sets it for another client. Read by resolveSettings;
 * everything not listed is a setting of every client.
 */
export const CLIENT_SETTINGS: {
  path: string;
  clients: KafkaClientKind[];
  why: Partial<Record<KafkaClientKind, string>>;
  /**
   * Values that set nothing, dropped for the other clients without a word: "none" (a linger of
   * 0), and the default resolveSettings fills in for the clients that have it, so settings
   * resolved for one client can be resolved again for another (a producer process on its own
   * client).
   */
  none?: unknown[];
}[] = [
  { path: 'producer.lingerMs', clients: ['confluent', 'java'], none: [0], why: { kafkajs: 'kafkajs sends every send() at once and has no linger', platformatic: '@platformatic/kafka sends every send() at once and has no linger' } },
  { path: 'producer.batchSize', clients: ['confluent', 'java'], why: { kafkajs: 'kafkajs has no batch size setting', platformatic: '@platformatic/kafka has no batch size setting for send()' } },
  { path: 'producer.deliveryTimeoutMs', clients: ['confluent', 'java'], why: { kafkajs: 'kafkajs has no delivery timeout (it retries `retries` times)', platformatic: '@platformatic/kafka has no delivery timeout (it retries `retries` times)' } },
  { path: 'producer.retryBackoffMs', clients: ['confluent', 'java', 'platformatic'], why: { kafkajs: 'kafkajs backs off on its own schedule' } },
  { path: 'producer.socketTimeoutMs', clients: ['confluent'], why: { kafkajs: 'a librdkafka setting; kafkajs gives up on a request after requestTimeoutMs', java: 'a librdkafka setting; the Java client gives up on a request after requestTimeoutMs', platformatic: 'a librdkafka setting; @platformatic/kafka gives up on a request after requestTimeoutMs' } },
  { path: 'producer.debug', clients: ['confluent'], none: [''], why: { kafkajs: 'librdkafka debug contexts; kafkajs has none (set it to "" or use client: confluent)', java: "librdkafka debug contexts; the Java client's warnings reach the log on their own", platformatic: 'librdkafka debug contexts; @platformatic/kafka has none (set it to "" or use client: confluent)' } },
  { path: 'producer.ignoreKeys', clients: ['java'], why: { kafkajs: 'partitioner.ignore.keys is a Java client setting', confluent: "partitioner.ignore.keys is a Java client setting (librdkafka's is the partitioner: random)" } },
  { path: 'producer.metadataMaxAgeMs', clients: ['java', 'platformatic'], why: { kafkajs: 'kafkajs is asked for fresh metadata when partitions are added', confluent: 'librdkafka is asked for fresh metadata when partitions are added' } },
  { path: 'consumer.maxPollIntervalMs', clients: ['confluent', 'java'], none: [300_000], why: { kafkajs: 'kafkajs has no max.poll.interval.ms (a stalled handler is evicted after sessionTimeoutMs)', platformatic: '@platformatic/kafka has no max.poll.interval.ms (its heartbeats run on a timer, whatever the handler does)' } },
  { path: 'consumer.api', clients: ['confluent'], none: ['native'], why: { kafkajs: "chooses between @confluentinc/kafka-javascript's consumer APIs", java: "chooses between @confluentinc/kafka-javascript's consumer APIs", platformatic: "chooses between @confluentinc/kafka-javascript's consumer APIs" } },
  { path: 'consumer.groupProtocol', clients: ['java'], none: ['classic'], why: {} },
  { path: 'consumer.assignor', clients: ['java'], none: ['range'], why: {} },
  { path: 'consumer.staticMembership', clients: ['java'], none: [false], why: {} },
  { path: 'consumer.share', clients: ['java'], why: { kafkajs: 'share groups need KafkaShareConsumer, which only the Java client has', confluent: 'share groups need KafkaShareConsumer, which only the Java client has', platformatic: 'share groups need KafkaShareConsumer, which only the Java client has' } },
  { path: 'consumer.maxPollRecords', clients: ['java'], none: [500], why: { kafkajs: 'kafkajs fetches by bytes (no max.poll.records)', platformatic: '@platformatic/kafka fetches by bytes (no max.poll.records)' } },
  { path: 'javaClient', clients: ['java'], why: {} },
];

/** Whether `client` has the client-specific setting at `path` (every client has the settings CLIENT_SETTINGS does not list). */
export function clientHas(client: KafkaClientKind, path: string): boolean {
  return CLIENT_SETTINGS.find((o) => o.path === path)?.clients.includes(client) ?? true;
}
