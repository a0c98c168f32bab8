/**
 * Producer and consumer on @confluentinc/kafka-javascript (librdkafka). The consumer uses its
 * KafkaJS-style promise API (`require('@confluentinc/kafka-javascript').KafkaJS`); the
 * producer its node-rdkafka-style `Producer` with delivery reports (see confluentProducer: the
 * KafkaJS layer's per-send overhead held throughput to about a third of the Java tool's).
 *
 * Every setting is passed as a librdkafka property at the top level of the client config;
 * the consumer's `kafkaJS` block carries only the logger (top-level properties override
 * whatever the block's compatibility mode would set).
 *
 * Producer: acks, enable.idempotence, max.in.flight.requests.per.connection, retries,
 * linger.ms, batch.size, request.timeout.ms (broker side) and socket.timeout.ms (client side)
 * from requestTimeoutMs, message.timeout.ms from deliveryTimeoutMs, and the partitioner:
 * murmur2 -> `murmur2_random` (Java-compatible), crc32 -> `consistent_random` (librdkafka's
 * default CRC32). The ack's lane is `p<partition>`.
 *
 * Consumer: eachBatch with manual offset resolution (consumer-core.ts has the semantics), a
 * rebalance_cb that commits the settled prefix before partitions are revoked, eager
 * `roundrobin` assignment like kafkajs's default. max.poll.interval.ms: the KafkaJS layer
 * hands librdkafka twice the value it is given (it uses the first half to expire its message
 * cache), so this adapter gives it half of maxPollIntervalMs: librdkafka then really leaves the
 * group after maxPollIntervalMs without a poll, which is what the setting means.
 */
import { createRequire } from 'node:module';
import {
  SendFailure,
  type ConsumerClient,
  type ConsumerOptions,
  type Delivery,
  type OutgoingMessage,
  type ProducerClient,
  type ProducerOptions,
  type RunNames,
  type SendAck,
} from '../../harness/broker/contract.ts';
import { InfraError } from '../../harness/errors.ts';
import { ConsumerCore, laneOf, throttledLog } from './consumer-core.ts';
import { rdkafkaConnection, type KafkaEndpoint } from './endpoint.ts';
import { clientId, groupId, topicName } from './names.ts';
import type { KafkaSettings } from './settings.ts';

/* The package is an optional dependency with a native part: load it lazily, with a clear error. */
type CKJS = typeof import('@confluentinc/kafka-javascript');
let ckjs: CKJS | undefined;
export function loadConfluent(): CKJS {
  if (ckjs) return ckjs;
  try {
    const require = createRequire(import.meta.url);
    ckjs = require('@confluentinc/kafka-javascript') as CKJS;
    return ckjs;
  } catch (err) {
    throw new InfraError(
      '@confluentinc/kafka-javascript is not installed or its native part is not built (see platform notes: CKJS_LINKING=dynamic npm install @confluentinc/kafka-javascript)',
      [(err as Error).message],
      { cause: err },
    );
  }
}

/** librdkafka error codes that guarantee nothing was written. */
const DEFINITE_CODES = new Set([
  10, // MSG_SIZE_TOO_LARGE (also raised locally before sending)
  18, // RECORD_LIST_TOO_LARGE
  87, // INVALID_RECORD
  21, // INVALID_REQUIRED_ACKS
  32, // INVALID_TIMESTAMP
  29, // TOPIC_AUTHORIZATION_FAILED
  31, // CLUSTER_AUTHORIZATION_FAILED
  17, // INVALID_TOPIC_EXCEPTION
  43, // UNSUPPORTED_FOR_MESSAGE_FORMAT
  -184, // _QUEUE_FULL: refused by the local queue, never sent
  -186, // _INVALID_ARG: refused locally
]);

export function isDefiniteRdkafkaError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'number' && DEFINITE_CODES.has(code);
}

interface Logger {
  info(m: string, e?: unknown): void;
  warn(m: string, e?: unknown): void;
  error(m: string, e?: unknown): void;
  debug(m: string, e?: unknown): void;
  namespace(): Logger;
  setLogLevel(l: number): void;
}

/** A KafkaJS-style logger that forwards warnings and errors to the worker's log. */
function logger(log: (l: string) => void, onDebug?: (m: string) => void): Logger {
  const out = throttledLog(log);
  const l: Logger = {
    info: () => {},
    warn: (m) => out(`librdkafka warn: ${m}`),
    error: (m) => out(`librdkafka error: ${m}`),
    debug: (m) => onDebug?.(m),
    namespace: () => l,
    setLogLevel: () => {},
  };
  return l;
}

/** librdkafka debug lines about failed, timed-out and retried requests (the evidence), the first few thousand. */
// Known-bugs #1 reads the idempotent producer's lines (PID, epoch, sequence) as its evidence.
const DEBUG_KEEP = /error|fail|retry|retrying|timed out|leader|migrat|backoff|NOT_ENOUGH|NOT_LEADER|epoch|\bpid\b|sequence|idempot/i;
const DEBUG_MAX = 5_000;
function debugLog(log: (l: string) => void, errors: Map<string, number>): (m: string) => void {
  let kept = 0;
  return (m) => {
    // "... [2]: MessageSet with 3 message(s) (...) encountered error: Broker: Not enough in-sync replicas (actions Retry,...)"
    const err = / encountered error: (.+?) \(actions/.exec(m)?.[1];
    if (err) errors.set(err, (errors.get(err) ?? 0) + 1);
    // The run's topic name (convoy-<scenario>-...) may itself contain such a word.
    if (kept >= DEBUG_MAX || !DEBUG_KEEP.test(m.replace(/convoy-\S+/g, '')) || /NoError|Success/.test(m)) return;
    kept++;
    log(`librdkafka debug: ${m}${kept === DEBUG_MAX ? ' (the last debug line kept)' : ''}`);
  };
}

interface RdkafkaReport {
  partition: number;
  offset: number;
  opaque?: unknown;
}
interface RdkafkaProducer {
  connect(o: unknown, cb: (err: unknown) => void): void;
  produce(topic: string, partition: number | null, value: Buffer, key: string, timestamp: number | null, opaque: number): unknown;
  setPollInBackground(on: boolean): void;
  getMetadata(o: unknown, cb: (err: unknown) => void): void;
  flush(timeout: number, cb: (err: unknown) => void): void;
  disconnect(timeout: number, cb: (err: unknown) => void): void;
  on(event: string, fn: (...a: never[]) => void): void;
}

/**
 * The producer runs on the library's node-rdkafka-style `Producer`, not on the KafkaJS layer:
 * produce() hands each message to librdkafka at once (librdkafka batches per partition, by
 * linger.ms and batch.size), and each delivery report resolves the message's own promise,
 * found through the opaque: a small integer, the message's slot in `resolves`/`rejects`
 * (slots are reused; the binding keeps a global handle per opaque, and one to a small
 * integer holds no object for the GC). The KafkaJS layer's `send()` adds an object opaque, a
 * Promise.all and a per-partition Map to every message: measured with `npm run bench --
 * throughput`, the producer worker's CPU per message fell from about 30 to about 18 ms per
 * 1000 messages. Delivery reports are polled on librdkafka's background thread
 * (setPollInBackground) and handed to the event loop by the binding, as the KafkaJS layer
 * does; a send refused by produce() (queue full, too large) fails at once, definitely.
 */
export async function confluentProducer(endpoint: KafkaEndpoint, settings: KafkaSettings, names: RunNames, options: ProducerOptions): Promise<ProducerClient> {
  const { Producer } = loadConfluent();
  const p = settings.producer;
  const topic = topicName(names);
  const out = throttledLog(options.log);
  const config: Record<string, unknown> = {
    ...rdkafkaConnection(endpoint),
    'client.id': clientId(names, options.id),
    acks: p.acks,
    'enable.idempotence': p.idempotent,
    'max.in.flight.requests.per.connection': p.maxInFlight,
    retries: p.retries,
    'retry.backoff.ms': p.retryBackoffMs ?? 100,
    // A backoff set by the scenario stays fixed (no exponential growth); librdkafka's default grows to 2 s.
    'retry.backoff.max.ms': p.retryBackoffMs ?? 2_000,
    'linger.ms': p.lingerMs,
    'batch.size': p.batchSize ?? 1_000_000,
    'request.timeout.ms': p.requestTimeoutMs,
    // As the KafkaJS layer set it (it caps socket.timeout.ms at transaction.timeout.ms + 100).
    'socket.timeout.ms': p.socketTimeoutMs ?? Math.min(60_100, Math.max(10, p.requestTimeoutMs)),
    'socket.connection.setup.timeout.ms': 11_000,
    'message.timeout.ms': p.deliveryTimeoutMs ?? 120_000,
    partitioner: p.partitioner === 'crc32' ? 'consistent_random' : 'murmur2_random',
    // librdkafka's warnings and errors (severity <= 4) reach the worker's log.
    log_level: p.debug ? 7 : 4,
    ...(p.debug ? { debug: p.debug } : {}),
    dr_cb: true,
  };
  const producer = new Producer(config as never) as unknown as RdkafkaProducer;
  // Per error, the produce batches librdkafka saw fail (known only with debug msg).
  const batchErrors = new Map<string, number>();
  const debug = debugLog(options.log, batchErrors);
  producer.on('event.log', ((m: { severity: number; message: string; fac?: string }) =>
    m.severity >= 7 ? debug(m.fac ? `${m.fac}: ${m.message}` : m.message) : out(`librdkafka ${m.severity <= 3 ? 'error' : 'warn'}: ${m.message}`)) as never);
  producer.on('event.error', ((err: Error) => out(`librdkafka error: Error: ${err.message}`)) as never);

  // One slot per message awaiting its delivery report; freed slots are reused.
  const resolves: (((a: SendAck) => void) | undefined)[] = [];
  const rejects: (((e: unknown) => void) | undefined)[] = [];
  const free: number[] = [];
  producer.on('delivery-report', ((err: { code?: number; message?: string } | null | undefined, report: RdkafkaReport) => {
    const slot = report.opaque as number;
    const resolve = resolves[slot];
    const reject = rejects[slot];
    if (!resolve || !reject) return;
    resolves[slot] = undefined;
    rejects[slot] = undefined;
    free.push(slot);
    if (err) reject(new SendFailure(err.message ?? String(err), isDefiniteRdkafkaError(err), { cause: err }));
    else resolve({ lane: laneOf(report.partition), offset: report.offset >= 0 ? report.offset : undefined });
  }) as never);

  await new Promise<void>((resolve, reject) =>
    producer.connect(null, (err) => (err ? reject(err instanceof Error ? err : new Error(String((err as { message?: string }).message ?? err))) : resolve())),
  );
  producer.setPollInBackground(true);
  const refreshMetadata = (): Promise<void> =>
    new Promise((resolve, reject) =>
      producer.getMetadata({ topic, timeout: 10_000 }, (err) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve())),
    );
  // The topic's metadata before the first send (librdkafka would fetch it on first use).
  await refreshMetadata().catch((err: Error) => options.log(`metadata for ${topic}: ${err.message}`));
  return {
    send(m: OutgoingMessage): Promise<SendAck> {
      return new Promise<SendAck>((resolve, reject) => {
        const slot = free.length ? free.pop()! : resolves.length;
        resolves[slot] = resolve;
        rejects[slot] = reject;
        try {
          // Partition null: librdkafka's partitioner chooses from the key.
          producer.produce(topic, null, m.payload, m.key, null, slot);
        } catch (err) {
          // Refused before it was queued (queue full, too large, not connected): no report follows.
          resolves[slot] = undefined;
          rejects[slot] = undefined;
          free.push(slot);
          reject(new SendFailure((err as Error).message, isDefiniteRdkafkaError(err), { cause: err }));
        }
      });
    },
    /** A metadata request on the producer's own handle updates librdkafka's partition count at once. */
    refreshMetadata,
    errorsSeen: () => Object.fromEntries(batchErrors),
    async close(): Promise<void> {
      // flush() and disconnect() throw when the client is no longer connected.
      await new Promise<void>((resolve) => {
        try {
          producer.flush(5_000, () => resolve());
        } catch {
          resolve();
        }
      });
      await new Promise<void>((resolve, reject) => {
        try {
          producer.disconnect(5_000, (err) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve()));
        } catch {
          resolve();
        }
      });
    },
  };
}

export async function confluentConsumer(endpoint: KafkaEndpoint, settings: KafkaSettings, names: RunNames, options: ConsumerOptions): Promise<ConsumerClient> {
  const { KafkaJS } = loadConfluent();
  const c = settings.consumer;
  const topic = topicName(names);
  const core = new ConsumerCore(topic, c, options);
  // librdkafka's cgrp debug lines are the only place it names the group generation.
  // (a few hundred lines per 20k messages with per-settlement commits: cheap).
  let generation: number | undefined;
  const onDebug = (m: string) => {
    const g = /JoinGroup response: GenerationId (\d+)/.exec(m);
    if (g) generation = Number(g[1]);
  };
  const ASSIGN = -175;
  const REVOKE = -174;
  const config: Record<string, unknown> = {
    ...rdkafkaConnection(endpoint),
    'client.id': clientId(names, options.id),
    'group.id': groupId(names),
    'session.timeout.ms': c.sessionTimeoutMs,
    'heartbeat.interval.ms': c.heartbeatIntervalMs,
    'max.poll.interval.ms': Math.ceil((c.maxPollIntervalMs ?? 300_000) / 2),
    'enable.auto.commit': false,
    'auto.offset.reset': c.fromBeginning ? 'earliest' : 'latest',
    'topic.metadata.refresh.interval.ms': c.metadataMaxAgeMs,
    'partition.assignment.strategy': 'roundrobin',
    'allow.auto.create.topics': false,
    debug: 'cgrp',
    rebalance_cb: async (err: { code: number }, assignment: { topic: string; partition: number }[]) => {
      const parts = assignment.filter((a) => a.topic === topic).map((a) => a.partition);
      if (err.code === ASSIGN) core.assign(parts, generation);
      else if (err.code === REVOKE) {
        await core.flush();
        core.revoke(parts, generation);
      }
      // Returning nothing lets the KafkaJS layer apply the (eager) assignment as given.
    },
    kafkaJS: { logger: logger(options.log, onDebug), logLevel: KafkaJS.logLevel.DEBUG },
  };
  const consumer = new KafkaJS.Kafka({}).consumer(config as never);
  core.attach({
    seek: (partition, offset) => consumer.seek({ topic, partition, offset: String(offset) }),
    commit: async (offsets) => {
      await consumer.commitOffsets(offsets.map((o) => ({ topic, partition: o.partition, offset: String(o.offset) })));
    },
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic] });
  return {
    async start(onDelivery: (d: Delivery) => Promise<void>): Promise<void> {
      core.start(onDelivery);
      await consumer.run({
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: c.partitionsConsumedConcurrently,
        eachBatch: async ({ batch, resolveOffset, isRunning, isStale }) => {
          for (const message of batch.messages) {
            if (!isRunning() || isStale()) break;
            const offset = Number(message.offset);
            const handed = await core.handOut(batch.partition, offset, message.value ?? Buffer.alloc(0), {
              stale: () => !isRunning() || isStale(),
            });
            if (!handed) break;
            // The fetch position moves on; what gets committed is decided by settlement.
            resolveOffset(message.offset);
          }
        },
      });
    },
    ready: (timeoutMs) => core.ready(timeoutMs),
    commitsLater: true,
    async close(): Promise<void> {
      await core.flush();
      core.close();
      await consumer.disconnect();
    },
  };
}
