/**
 * Producer and consumer on kafkajs 2.2.4.
 *
 * Producer: kafkajs has no linger; the send() calls of one tick go to kafkajs as one send()
 * (see kafkajsProducer for why), Java-compatible murmur2 partitioner (kafkajs
 * DefaultPartitioner), maxInFlight = kafkajs maxInFlightRequests per broker connection, acks
 * and requestTimeoutMs per request. The ack's lane is `p<partition>`.
 *
 * Consumer: eachBatch with manual offset resolution; see consumer-core.ts for the delivery and
 * settlement semantics. kafkajs heartbeats only between messages (and while this adapter waits
 * for an in-flight slot), so a handler that blocks longer than sessionTimeoutMs gets the member
 * evicted; there is no max.poll.interval.ms.
 */
import { createRequire } from 'node:module';
import kafkajs from 'kafkajs';
import type { Consumer, Kafka as KafkaClient, LogEntry, Producer } from 'kafkajs';
import {
  SendFailure,
  type ConsumerClient,
  type ConsumerOptions,
  type Delivery,
  type ProducerClient,
  type ProducerOptions,
  type RunNames,
  type OnDelivery,
} from '../../harness/broker/contract.ts';
import { ConsumerCore, throttledLog } from './consumer-core.ts';
import { kafkajsConnection, type KafkaEndpoint } from './endpoint.ts';
import { kafkajsPart } from './client-config.ts';
import { tickBatcher } from './tick-batch.ts';
import { clientId, groupId, topicName } from './names.ts';
import type { KafkaSettings } from './settings.ts';

const { Kafka, logLevel, Partitioners } = kafkajs;

/** Broker error types that guarantee nothing was written, whatever earlier attempts did. */
export const DEFINITE_TYPES = new Set([
  'MESSAGE_TOO_LARGE',
  'RECORD_LIST_TOO_LARGE',
  'INVALID_RECORD',
  'INVALID_REQUIRED_ACKS',
  'INVALID_TIMESTAMP',
  'TOPIC_AUTHORIZATION_FAILED',
  'CLUSTER_AUTHORIZATION_FAILED',
  'INVALID_TOPIC_EXCEPTION',
  'UNSUPPORTED_FOR_MESSAGE_FORMAT',
]);

export function isDefiniteKafkajsError(err: unknown): boolean {
  for (let e = err as { type?: string; cause?: unknown; originalError?: unknown } | undefined, depth = 0; e && depth < 6; depth++) {
    if (e.type && DEFINITE_TYPES.has(e.type)) return true;
    e = (e.cause ?? e.originalError) as typeof e;
  }
  return false;
}

/**
 * What kafkajs logs as an error while a group forms or re-forms (a member joining, a rebalance
 * after a partition change or a kill) is the protocol working as meant, not a fault.
 */
const GROUP_JOIN_CHATTER = /group is rebalancing|not aware of this member|needs to have a valid member id|not the correct coordinator|coordinator is (loading|not available)/i;

export function isGroupJoinChatter(text: string): boolean {
  return GROUP_JOIN_CHATTER.test(text);
}

function logCreator(log: (l: string) => void) {
  const out = throttledLog(log);
  return () =>
    ({ namespace, level, log: entry }: LogEntry) => {
      const { message, error } = entry as { message: string; error?: string };
      const text = `[${namespace}] ${message}${error ? `: ${error}` : ''}`;
      // Adapters run in worker processes whose stderr is the worker's own log file: expected
      // chatter is kept there, and not shown on the run's console as an error.
      if (isGroupJoinChatter(text)) process.stderr.write(`kafkajs info ${text}\n`);
      else out(`kafkajs ${level === logLevel.ERROR ? 'error' : 'warn'} ${text}`);
    };
}

function client(endpoint: KafkaEndpoint, settings: KafkaSettings, id: string, log: (l: string) => void, role: 'producer' | 'consumer'): KafkaClient {
  const producer = role === 'producer';
  return new Kafka({
    ...kafkajsConnection(endpoint),
    clientId: id,
    connectionTimeout: 3_000,
    requestTimeout: producer ? settings.producer.requestTimeoutMs : 30_000,
    retry: { retries: producer ? settings.producer.retries : 10, initialRetryTime: 100, maxRetryTime: 2_000 },
    logLevel: logLevel.WARN,
    logCreator: logCreator(log),
    ...kafkajsPart(endpoint.clientConfig, 'client'),
  });
}

interface CapturedCluster {
  refreshMetadata(): Promise<void>;
  addMultipleTargetTopics(topics: string[]): Promise<void>;
  findTopicPartitionMetadata(topic: string): { partitionId: number; leader: number }[];
  findBroker(o: { nodeId: number }): Promise<unknown>;
}

/**
 * kafkajs creates one cluster object per producer and has no public way to refresh its
 * metadata. Capture it when the producer is made (kafkajs 2.2.4 keeps the factory in an own
 * property under a private symbol) so refreshMetadata() can ask for fresh metadata at once.
 */
function captureCluster(kafka: KafkaClient): () => CapturedCluster | undefined {
  let cluster: CapturedCluster | undefined;
  const sym = Object.getOwnPropertySymbols(kafka).find((s) => s.description === 'private:Kafka:createCluster');
  const k = kafka as unknown as Record<symbol, (...a: unknown[]) => unknown>;
  if (sym && typeof k[sym] === 'function') {
    const orig = k[sym]!.bind(kafka);
    k[sym] = (...a: unknown[]) => (cluster = orig(...a) as CapturedCluster);
  }
  return () => cluster;
}

/**
 * Sends keep their call order. kafkajs does not guarantee that on its own: every send()
 * takes a lock around the producer's target topics, and a released lock wakes the next waiter
 * ahead of the releasing call, so of two send() calls made in the same tick the second can
 * reach the broker first (measured: about 1 inversion per burst of 500 sends to one key, none
 * with sends 1 ms apart). The adapter therefore hands kafkajs every send() made in one tick as
 * ONE send() call, in call order, with each message's partition computed by kafkajs's own
 * DefaultPartitioner from the producer's metadata (the same choice kafkajs would make); the
 * broker answers with a base offset per partition, from which each message's offset follows.
 */
export async function kafkajsProducer(endpoint: KafkaEndpoint, settings: KafkaSettings, names: RunNames, options: ProducerOptions): Promise<ProducerClient> {
  const p = settings.producer;
  const kafka = client(endpoint, settings, clientId(names, options.id), options.log, 'producer');
  const cluster = captureCluster(kafka);
  const producer: Producer = kafka.producer({
    idempotent: p.idempotent,
    // A producer option in kafkajs (the Kafka() constructor ignores it): per broker connection.
    maxInFlightRequests: p.maxInFlight,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
    retry: { retries: p.retries, initialRetryTime: 100, maxRetryTime: 2_000 },
    ...kafkajsPart(endpoint.clientConfig, 'producer'),
  });
  await producer.connect();
  const topic = topicName(names, endpoint);
  const partitioner = Partitioners.DefaultPartitioner();
  const c = cluster();
  if (!c) throw new Error('kafkajs: the producer cluster was not captured (kafkajs internals changed?)');
  // Metadata and a connection to every leader before the first send, so the first sends do
  // not queue behind a metadata request.
  await c.addMultipleTargetTopics([topic]);
  await Promise.all([...new Set(c.findTopicPartitionMetadata(topic).map((m) => m.leader))].map((nodeId) => c.findBroker({ nodeId }).catch(() => {})));

  const partitionFor = (key: string): number => {
    const partitionMetadata = c.findTopicPartitionMetadata(topic);
    return partitioner({ topic, partitionMetadata: partitionMetadata as never, message: { key, value: null } });
  };

  const batcher = tickBatcher(
    partitionFor,
    async (messages) => {
      const metas = await producer.send({ topic, acks: p.acks, timeout: p.requestTimeoutMs, messages: messages.map((m) => ({ key: m.key, value: m.payload, partition: m.partition, ...(m.headers ? { headers: m.headers } : {}) })) });
      return new Map(metas.map((m) => [m.partition, m.baseOffset !== undefined && m.baseOffset !== '-1' ? Number(m.baseOffset) : undefined]));
    },
    (err) => new SendFailure((err as Error).message, isDefiniteKafkajsError(err), { cause: err }),
  );

  return {
    send: batcher.send,
    async refreshMetadata(): Promise<void> {
      await c.refreshMetadata();
    },
    async close(): Promise<void> {
      batcher.flush();
      await producer.disconnect();
    },
  };
}

/**
 * kafkajs's GROUP_JOIN event has no generation id, but its ConsumerGroup object keeps it.
 * Record the ConsumerGroup instances as they join (a wrapper around joinAndSync on the
 * prototype, kafkajs 2.2.4), so the event handler can read the generation of the member.
 */
const joiningGroups = new Set<{ memberId: string | null; generationId: number | null }>();
let patched = false;
function patchGenerationTracking(): void {
  if (patched) return;
  patched = true;
  try {
    const require = createRequire(import.meta.url);
    const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup.js') as { prototype: Record<string, unknown> };
    const orig = ConsumerGroup.prototype.joinAndSync as ((...a: unknown[]) => Promise<unknown>) | undefined;
    if (typeof orig !== 'function') return;
    ConsumerGroup.prototype.joinAndSync = function (this: { memberId: string | null; generationId: number | null }, ...a: unknown[]) {
      joiningGroups.add(this);
      return orig.apply(this, a);
    };
  } catch {
    /* generation stays unknown */
  }
}
function generationOf(memberId: string): number | undefined {
  for (const g of joiningGroups) if (g.memberId === memberId) return g.generationId ?? undefined;
  return undefined;
}

export async function kafkajsConsumer(endpoint: KafkaEndpoint, settings: KafkaSettings, names: RunNames, options: ConsumerOptions): Promise<ConsumerClient> {
  patchGenerationTracking();
  const c = settings.consumer;
  const topic = topicName(names, endpoint);
  const kafka = client(endpoint, settings, clientId(names, options.id), options.log, 'consumer');
  const consumer: Consumer = kafka.consumer({
    groupId: groupId(names),
    sessionTimeout: c.sessionTimeoutMs,
    heartbeatInterval: c.heartbeatIntervalMs,
    rebalanceTimeout: Math.max(c.sessionTimeoutMs, 60_000),
    metadataMaxAge: c.metadataMaxAgeMs,
    allowAutoTopicCreation: false,
    retry: { retries: 10, initialRetryTime: 100, maxRetryTime: 2_000 },
    ...kafkajsPart(endpoint.clientConfig, 'consumer'),
  });
  const core = new ConsumerCore(topic, c, options);
  let memberId: string | undefined;
  let current: number[] = [];

  core.attach({
    seek: (partition, offset) => consumer.seek({ topic, partition, offset: String(offset) }),
    commit: (offsets) => consumer.commitOffsets(offsets.map((o) => ({ topic, partition: o.partition, offset: String(o.offset) }))),
  });

  consumer.on(consumer.events.REBALANCING, () => {
    // Eager rebalance: everything this member holds is about to be revoked; commit what is settled.
    void core.flush();
  });
  consumer.on(consumer.events.GROUP_JOIN, (e) => {
    memberId = e.payload.memberId;
    const generation = generationOf(memberId);
    const next = (e.payload.memberAssignment[topic] ?? []).slice().sort((a, b) => a - b);
    // kafkajs restarts every partition from its committed offset after a join, kept or not.
    core.revoke(current, generation);
    current = next;
    core.assign(next, generation);
  });
  consumer.on(consumer.events.CRASH, (e) => {
    options.log(`kafkajs consumer crashed (${e.payload.restart ? 'restarting' : 'not restarting'}): ${e.payload.error.message}`);
  });

  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: c.fromBeginning });

  return {
    async start(onDelivery: OnDelivery): Promise<void> {
      core.start(onDelivery);
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: c.partitionsConsumedConcurrently,
        eachBatch: (payload) => core.handOutBatch(payload),
      });
    },
    ...core.lifecycle(() => consumer.disconnect()),
  };
}
