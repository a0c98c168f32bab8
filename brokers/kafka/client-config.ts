/**
 * Pass-through client settings for Kafka (the external runtime's `kafkajs.*`, `librdkafka.*`,
 * `java.*` and `platformatic.*` keys), each in the form its client takes, and the settings convoy sets itself, which
 * cannot be overridden: a scenario setting, a name convoy tells runs apart by, what its delivery
 * tracking relies on, or the connection's own security (given as ssl.* / sasl.*, and redacted
 * there). docs/external.md lists them from here.
 */
import { InputError } from '../../harness/errors.ts';

export interface ClientPassThrough {
  /** kafkajs: options of `new Kafka()`; `producer` and `consumer` hold those of kafka.producer() / kafka.consumer(). */
  kafkajs?: Record<string, unknown>;
  /** librdkafka properties (client confluent), by their dotted names. */
  librdkafka?: Record<string, string | number | boolean>;
  /** Java client properties (client java), by their dotted names. */
  java?: Record<string, string>;
  /** @platformatic/kafka: options of `new Producer()` and `new Consumer()`; `producer` and `consumer` hold those of one of them. */
  platformatic?: Record<string, unknown>;
}

/** The clients whose pass-through is an options object with `producer` and `consumer` parts. */
type OptionsClient = 'kafkajs' | 'platformatic';

const CONNECTION = 'set from the connection (bootstrapServers, ssl.*, sasl.*), where secrets are redacted';
const NAMES = 'convoy names its topic, group and clients after the run id';
const TRACKING = "convoy's delivery tracking relies on it (offsets are committed by settlement, never by the client)";
const scenario = (field: string) => `the scenario sets it (broker.${field})`;

/** Settings convoy sets itself in each client, with why; a pass-through key among them is refused. */
export const RESERVED: Record<OptionsClient | `${OptionsClient}.${'producer' | 'consumer'}` | 'librdkafka' | 'java', Record<string, string>> = {
  kafkajs: {
    brokers: CONNECTION,
    ssl: CONNECTION,
    sasl: CONNECTION,
    clientId: NAMES,
    requestTimeout: scenario('producer.requestTimeoutMs'),
    retry: scenario('producer.retries'),
    logLevel: "convoy reads the client's warnings into the worker's log",
    logCreator: "convoy reads the client's warnings into the worker's log",
  },
  'kafkajs.producer': {
    idempotent: scenario('producer.idempotent'),
    maxInFlightRequests: scenario('producer.maxInFlight'),
    retry: scenario('producer.retries'),
    createPartitioner: scenario('producer.partitioner'),
    allowAutoTopicCreation: 'convoy creates (or checks) the topic itself',
    transactionalId: 'convoy does not drive transactions',
  },
  'kafkajs.consumer': {
    groupId: NAMES,
    sessionTimeout: scenario('consumer.sessionTimeoutMs'),
    heartbeatInterval: scenario('consumer.heartbeatIntervalMs'),
    metadataMaxAge: scenario('consumer.metadataMaxAgeMs'),
    rebalanceTimeout: 'convoy derives it from the session timeout',
    retry: 'convoy sets the consumer retries',
    allowAutoTopicCreation: 'convoy creates (or checks) the topic itself',
    partitionAssigners: 'convoy uses an eager round-robin assignment on every client alike',
  },
  librdkafka: {
    'bootstrap.servers': CONNECTION,
    'metadata.broker.list': CONNECTION,
    'security.protocol': CONNECTION,
    'sasl.mechanism': CONNECTION,
    'sasl.mechanisms': CONNECTION,
    'sasl.username': CONNECTION,
    'sasl.password': CONNECTION,
    'sasl.oauthbearer.config': CONNECTION,
    'enable.sasl.oauthbearer.unsecure.jwt': CONNECTION,
    'ssl.ca.pem': CONNECTION,
    'ssl.certificate.pem': CONNECTION,
    'ssl.key.pem': CONNECTION,
    'enable.ssl.certificate.verification': CONNECTION,
    'ssl.endpoint.identification.algorithm': CONNECTION,
    'client.id': NAMES,
    'group.id': NAMES,
    acks: scenario('producer.acks'),
    'request.required.acks': scenario('producer.acks'),
    'enable.idempotence': scenario('producer.idempotent'),
    'max.in.flight.requests.per.connection': scenario('producer.maxInFlight'),
    'max.in.flight': scenario('producer.maxInFlight'),
    retries: scenario('producer.retries'),
    'message.send.max.retries': scenario('producer.retries'),
    'retry.backoff.ms': scenario('producer.retryBackoffMs'),
    'retry.backoff.max.ms': scenario('producer.retryBackoffMs'),
    'linger.ms': scenario('producer.lingerMs'),
    'queue.buffering.max.ms': scenario('producer.lingerMs'),
    'batch.size': scenario('producer.batchSize'),
    'request.timeout.ms': scenario('producer.requestTimeoutMs'),
    'socket.timeout.ms': scenario('producer.socketTimeoutMs'),
    'message.timeout.ms': scenario('producer.deliveryTimeoutMs'),
    'delivery.timeout.ms': scenario('producer.deliveryTimeoutMs'),
    partitioner: scenario('producer.partitioner'),
    debug: scenario('producer.debug'),
    log_level: "convoy reads librdkafka's log into the worker's log",
    dr_cb: TRACKING,
    'session.timeout.ms': scenario('consumer.sessionTimeoutMs'),
    'heartbeat.interval.ms': scenario('consumer.heartbeatIntervalMs'),
    'max.poll.interval.ms': scenario('consumer.maxPollIntervalMs'),
    'topic.metadata.refresh.interval.ms': scenario('consumer.metadataMaxAgeMs'),
    'auto.offset.reset': scenario('consumer.fromBeginning'),
    'enable.auto.commit': TRACKING,
    'enable.auto.offset.store': TRACKING,
    'partition.assignment.strategy': 'convoy uses an eager round-robin assignment on every client alike',
    'allow.auto.create.topics': 'convoy creates (or checks) the topic itself',
    rebalance_cb: TRACKING,
  },
  java: {
    'bootstrap.servers': CONNECTION,
    'security.protocol': CONNECTION,
    'sasl.mechanism': CONNECTION,
    'sasl.jaas.config': CONNECTION,
    'sasl.login.callback.handler.class': CONNECTION,
    'ssl.truststore.type': CONNECTION,
    'ssl.truststore.certificates': CONNECTION,
    'ssl.keystore.type': CONNECTION,
    'ssl.keystore.certificate.chain': CONNECTION,
    'ssl.keystore.key': CONNECTION,
    'client.id': NAMES,
    'group.id': NAMES,
    'group.instance.id': scenario('consumer.staticMembership'),
    'key.serializer': 'convoy sends text keys and byte payloads',
    'value.serializer': 'convoy sends text keys and byte payloads',
    'key.deserializer': 'convoy sends text keys and byte payloads',
    'value.deserializer': 'convoy sends text keys and byte payloads',
    acks: scenario('producer.acks'),
    'enable.idempotence': scenario('producer.idempotent'),
    'max.in.flight.requests.per.connection': scenario('producer.maxInFlight'),
    retries: scenario('producer.retries'),
    'linger.ms': scenario('producer.lingerMs'),
    'batch.size': scenario('producer.batchSize'),
    'request.timeout.ms': scenario('producer.requestTimeoutMs'),
    'delivery.timeout.ms': scenario('producer.deliveryTimeoutMs'),
    'metadata.max.age.ms': scenario('producer.metadataMaxAgeMs / consumer.metadataMaxAgeMs'),
    'retry.backoff.ms': scenario('producer.retryBackoffMs'),
    'retry.backoff.max.ms': scenario('producer.retryBackoffMs'),
    'partitioner.ignore.keys': scenario('producer.ignoreKeys'),
    'enable.auto.commit': TRACKING,
    'auto.offset.reset': scenario('consumer.fromBeginning'),
    'max.poll.interval.ms': scenario('consumer.maxPollIntervalMs'),
    'max.poll.records': scenario('consumer.maxPollRecords'),
    'group.protocol': scenario('consumer.groupProtocol'),
    'group.remote.assignor': scenario('consumer.assignor'),
    'partition.assignment.strategy': scenario('consumer.assignor'),
    'session.timeout.ms': scenario('consumer.sessionTimeoutMs'),
    'heartbeat.interval.ms': scenario('consumer.heartbeatIntervalMs'),
    'share.acknowledgement.mode': scenario('consumer.share.acknowledgement'),
    'share.acquire.mode': scenario('consumer.maxPollRecords'),
  },
  platformatic: {
    bootstrapBrokers: CONNECTION,
    tls: CONNECTION,
    ssl: CONNECTION,
    sasl: CONNECTION,
    clientId: NAMES,
    timeout: scenario('producer.requestTimeoutMs'),
    retries: scenario('producer.retries'),
    retryDelay: scenario('producer.retryBackoffMs'),
    maxInflights: scenario('producer.maxInFlight'),
    metadataMaxAge: scenario('producer.metadataMaxAgeMs / consumer.metadataMaxAgeMs'),
    autocreateTopics: 'convoy creates (or checks) the topic itself',
  },
  'platformatic.producer': {
    idempotent: scenario('producer.idempotent'),
    acks: scenario('producer.acks'),
    partitioner: scenario('producer.partitioner'),
    transactionalId: 'convoy does not drive transactions',
    serializers: 'convoy sends text keys and byte payloads',
  },
  'platformatic.consumer': {
    groupId: NAMES,
    sessionTimeout: scenario('consumer.sessionTimeoutMs'),
    heartbeatInterval: scenario('consumer.heartbeatIntervalMs'),
    rebalanceTimeout: 'convoy derives it from the session timeout',
    autocommit: TRACKING,
    deserializers: 'convoy sends text keys and byte payloads',
    groupProtocol: 'convoy drives the classic group protocol on this client',
    protocols: 'convoy uses an eager round-robin assignment on every client alike',
    partitionAssigner: 'convoy uses an eager round-robin assignment on every client alike',
  },
};

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `{socket: {keepalive: {enable: true}}}` (as the connection's dotted keys nest) → `{'socket.keepalive.enable': true}`. */
export function dotted(node: Record<string, unknown>, prefix = '', out: Record<string, string | number | boolean> = {}): Record<string, string | number | boolean> {
  for (const [k, v] of Object.entries(node)) {
    if (isObj(v)) dotted(v, `${prefix}${k}.`, out);
    else out[prefix + k] = v as string | number | boolean;
  }
  return out;
}

/** A connection file's text values as kafkajs wants them: numbers and true/false typed. */
function typedTree(node: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k, isObj(v) ? typedTree(v) : v === 'true' ? true : v === 'false' ? false : typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v]),
  );
}

function refuse(section: keyof typeof RESERVED, keys: Iterable<string>): void {
  for (const key of keys) {
    const why = RESERVED[section][key];
    if (why) throw new InputError(`external Kafka: ${section}.${key} cannot be passed through: ${why}`);
  }
}

/** The external settings' `kafkajs`, `librdkafka` and `java` sections, checked against RESERVED. */
export function passThroughFromExternal(ext: Record<string, unknown>): ClientPassThrough | undefined {
  const out: ClientPassThrough = {};
  for (const name of ['kafkajs', 'platformatic'] as const) {
    if (ext[name] === undefined) continue;
    if (!isObj(ext[name])) throw new InputError(`external Kafka: ${name}: expected ${name} options (${name}.<option>=value)`);
    const all = typedTree(ext[name]);
    const { producer, consumer, ...client } = all;
    refuse(name, Object.keys(client));
    if (producer !== undefined && !isObj(producer)) throw new InputError(`external Kafka: ${name}.producer: expected producer options (${name}.producer.<option>=value)`);
    if (consumer !== undefined && !isObj(consumer)) throw new InputError(`external Kafka: ${name}.consumer: expected consumer options (${name}.consumer.<option>=value)`);
    refuse(`${name}.producer`, Object.keys(producer ?? {}));
    refuse(`${name}.consumer`, Object.keys(consumer ?? {}));
    out[name] = all;
  }
  for (const section of ['librdkafka', 'java'] as const) {
    const v = ext[section];
    if (v === undefined) continue;
    if (!isObj(v)) throw new InputError(`external Kafka: ${section}: expected client properties (${section}.<property>=value)`);
    const props = dotted(v);
    refuse(section, Object.keys(props));
    if (section === 'java') out.java = Object.fromEntries(Object.entries(props).map(([k, x]) => [k, String(x)]));
    else out.librdkafka = props;
  }
  return Object.keys(out).length ? out : undefined;
}

/** The kafkajs pass-through for one part: `client` (new Kafka()), `producer` or `consumer`. */
export function kafkajsPart(p: ClientPassThrough | undefined, part: 'client' | 'producer' | 'consumer'): Record<string, unknown> {
  return optionsPart(p, 'kafkajs', part);
}

/** The @platformatic/kafka pass-through for `new Producer()` or `new Consumer()`: the shared options, then the part's own. */
export function platformaticOptions(p: ClientPassThrough | undefined, part: 'producer' | 'consumer'): Record<string, unknown> {
  return { ...optionsPart(p, 'platformatic', 'client'), ...optionsPart(p, 'platformatic', part) };
}

function optionsPart(p: ClientPassThrough | undefined, name: OptionsClient, part: 'client' | 'producer' | 'consumer'): Record<string, unknown> {
  const all = p?.[name] ?? {};
  if (part !== 'client') return (all[part] as Record<string, unknown> | undefined) ?? {};
  const { producer: _p, consumer: _c, ...client } = all;
  return client;
}

const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

/**
 * An unsecured JWT (alg none, no signature) for `principal`, as librdkafka's
 * enable.sasl.oauthbearer.unsecure.jwt and the Java client's default OAUTHBEARER login make
 * them: for test clusters whose brokers accept unsecured tokens.
 */
export function unsecuredJwt(principal: string, lifetimeS = 3600, nowS = Math.floor(Date.now() / 1000)): string {
  return `${b64url({ alg: 'none' })}.${b64url({ sub: principal, iat: nowS, exp: nowS + lifetimeS })}.`;
}

/** A JAAS option's value, quoted. */
export function jaasQuote(v: string): string {
  return `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
