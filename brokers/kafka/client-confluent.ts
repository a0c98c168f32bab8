/**
 * Producer and consumer on @confluentinc/kafka-javascript (librdkafka), both on its
 * node-rdkafka-style API (`Producer` with delivery reports, `KafkaConsumer` with batch
 * `consume(n)`), not on its KafkaJS-compatible layer: that layer's per-message overhead held the
 * producer to about a third of the Java tool's rate and the consumer to about 0.4 (see
 * confluentProducer and confluentConsumer).
 *
 * Every setting is passed as a librdkafka property at the top level of the client config.
 *
 * Producer: acks, enable.idempotence, max.in.flight.requests.per.connection, retries,
 * linger.ms, batch.size, request.timeout.ms (broker side) and socket.timeout.ms (client side)
 * from requestTimeoutMs, message.timeout.ms from deliveryTimeoutMs, and the partitioner:
 * murmur2 -> `murmur2_random` (Java-compatible), crc32 -> `consistent_random` (librdkafka's
 * default CRC32). The ack's lane is `p<partition>`.
 *
 * Consumer: batches from `consume(n)` handed to the core with manual offset commits
 * (consumer-core.ts has the semantics), a rebalance_cb that commits the settled prefix before
 * partitions are revoked, eager `roundrobin` assignment like kafkajs's default, and
 * max.poll.interval.ms as given (librdkafka leaves the group after that long without a
 * consume call; the adapter stops calling while a batch is not handed out).
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
  type SendDone,
  type OnDelivery,
} from '../../harness/broker/contract.ts';
import { sleep } from '../../harness/clock.ts';
import { InfraError } from '../../harness/errors.ts';
import { ConsumerCore, handOutPartitions, laneOf, throttledLog } from './consumer-core.ts';
import { rdkafkaConnection, type KafkaEndpoint } from './endpoint.ts';
import { GenerationWait } from './generation-wait.ts';
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
  produce(topic: string, partition: number | null, value: Buffer, key: string, timestamp: number | null, opaque: number, headers?: Record<string, string>[]): unknown;
  setPollInBackground(on: boolean): void;
  getMetadata(o: unknown, cb: (err: unknown) => void): void;
  flush(timeout: number, cb: (err: unknown) => void): void;
  disconnect(timeout: number, cb: (err: unknown) => void): void;
  on(event: string, fn: (...a: never[]) => void): void;
}

/**
 * The producer runs on the library's node-rdkafka-style `Producer`, not on the KafkaJS layer:
 * produce() hands each message to librdkafka at once (librdkafka batches per partition, by
 * linger.ms and batch.size), and each delivery report answers the message's own callback
 * (sendCallback; send() wraps it in a promise), found through the opaque: a small integer, the
 * message's slot in `dones` (slots are reused; the binding keeps a global handle per opaque,
 * and one to a small integer holds no object for the GC). The KafkaJS layer's `send()` adds an object opaque, a
 * Promise.all and a per-partition Map to every message: measured with `npm run bench --
 * throughput`, the producer worker's CPU per message fell from about 30 to about 18 ms per
 * 1000 messages. Delivery reports are polled on librdkafka's background thread
 * (setPollInBackground) and handed to the event loop by the binding, as the KafkaJS layer
 * does; a send refused by produce() (queue full, too large) fails at once, definitely.
 */
export async function confluentProducer(endpoint: KafkaEndpoint, settings: KafkaSettings, names: RunNames, options: ProducerOptions): Promise<ProducerClient> {
  const { Producer } = loadConfluent();
  const p = settings.producer;
  const topic = topicName(names, endpoint);
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
  const dones: (SendDone | undefined)[] = [];
  const free: number[] = [];
  // Lane names by partition, made once: an ack names its lane at every message.
  const lanes: string[] = [];
  producer.on('delivery-report', ((err: { code?: number; message?: string } | null | undefined, report: RdkafkaReport) => {
    const slot = report.opaque as number;
    const done = dones[slot];
    if (!done) return;
    dones[slot] = undefined;
    free.push(slot);
    if (err) done(new SendFailure(err.message ?? String(err), isDefiniteRdkafkaError(err), { cause: err }));
    else done(null, { lane: (lanes[report.partition] ??= laneOf(report.partition)), offset: report.offset >= 0 ? report.offset : undefined });
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
  const sendCallback = (m: OutgoingMessage, done: SendDone): void => {
    const slot = free.length ? free.pop()! : dones.length;
    dones[slot] = done;
    try {
      // Partition null: librdkafka's partitioner chooses from the key.
      if (m.headers) producer.produce(topic, null, m.payload, m.key, null, slot, Object.entries(m.headers).map(([k, v]) => ({ [k]: v })));
      else producer.produce(topic, null, m.payload, m.key, null, slot);
    } catch (err) {
      // Refused before it was queued (queue full, too large, not connected): no report follows.
      dones[slot] = undefined;
      free.push(slot);
      done(new SendFailure((err as Error).message, isDefiniteRdkafkaError(err), { cause: err }));
    }
  };
  return {
    send(m: OutgoingMessage): Promise<SendAck> {
      return new Promise<SendAck>((resolve, reject) => sendCallback(m, (err, ack) => (err ? reject(err) : resolve(ack!))));
    },
    sendCallback,
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

/** The rebalance_cb codes of an eager assignment and revocation. */
export const ASSIGN = -175;
export const REVOKE = -174;

/**
 * The librdkafka group properties both confluent consumers share: manual commits of the settled
 * prefix only, eager `roundrobin` like kafkajs, and `cgrp` debug lines, the only place
 * librdkafka names the group generation (see generationIn).
 */
export function groupConfig(endpoint: KafkaEndpoint, c: KafkaSettings['consumer'], names: RunNames, id: string): Record<string, unknown> {
  return {
    ...rdkafkaConnection(endpoint),
    'client.id': clientId(names, id),
    'group.id': groupId(names),
    'session.timeout.ms': c.sessionTimeoutMs,
    'heartbeat.interval.ms': c.heartbeatIntervalMs,
    'enable.auto.commit': false,
    'topic.metadata.refresh.interval.ms': c.metadataMaxAgeMs,
    'partition.assignment.strategy': 'roundrobin',
    'allow.auto.create.topics': false,
    debug: 'cgrp',
  };
}

/** The group generation a `cgrp` debug line names, if it does. */
export function generationIn(line: string): number | undefined {
  const g = /JoinGroup response: GenerationId (\d+)/.exec(line);
  return g ? Number(g[1]) : undefined;
}

interface RdkafkaMessage {
  topic: string;
  partition: number;
  offset: number;
  value: Buffer | null;
}
interface RdkafkaConsumer {
  connect(o: unknown, cb: (err: unknown) => void): void;
  subscribe(topics: string[]): void;
  unsubscribe(): void;
  consume(n: number, cb: (err: { code?: number; message?: string } | null, messages: RdkafkaMessage[]) => void): void;
  setDefaultConsumeTimeout(ms: number): void;
  setDefaultIsTimeoutOnlyForFirstMessage(on: boolean): void;
  assign(parts: { topic: string; partition: number }[]): void;
  unassign(): void;
  seek(toppar: { topic: string; partition: number; offset: number }, timeout: number, cb: (err: unknown) => void): void;
  commitCb(offsets: { topic: string; partition: number; offset: number }[], cb: (err: unknown) => void): void;
  isConnected(): boolean;
  disconnect(cb: (err: unknown) => void): void;
  on(event: string, fn: (...a: never[]) => void): void;
}

/**
 * Messages asked for per consume call; the call returns what librdkafka has ready once the first
 * came. 500 rather than 1,000: a batch's messages, events and records live until its group
 * commits, and with half as many the consumer worker used about 4% less CPU per message (8
 * interleaved rounds, `npm run bench -- kafka`'s consumer row), the bare binding the same.
 */
const CONSUME_BATCH = 500;
/** How long one consume call waits for a first message (also the longest a close waits for it). */
const CONSUME_WAIT_MS = 200;

/**
 * The consumer runs on the library's node-rdkafka-style `KafkaConsumer`, not on its KafkaJS
 * layer: one loop calls `consume(n)` (librdkafka's own queue, filled by its fetcher threads),
 * hands the batch to the core partition by partition (each partition's messages in offset
 * order, one `handOut` after the other; the partitions side by side, the gate deciding how many
 * are out at once), and calls `consume` again only after every message of the batch was
 * handed out or dropped. So a handler that blocks its partition stops the polls, and librdkafka
 * leaves the group after max.poll.interval.ms, as the KafkaJS layer's eachBatch did. Measured
 * with `npm run bench -- consume`, the KafkaJS layer's per-message promises and
 * batch bookkeeping were most of the consumer's "client" time.
 *
 * Seeks (a requeue or release: the core rewinds its ledger and calls `seek`): the partition's
 * messages not handed out yet are dropped at once (its epoch moves), the librdkafka seek runs
 * between consume calls, and the partition's messages are dropped until the sought offset
 * itself arrives (a consume call in flight during the seek still returns the old position's
 * messages). Rebalances: eager `roundrobin` assignment with our own rebalance_cb; before a
 * revocation the settled prefix is committed, then the core drops the partitions and the
 * adapter unassigns them.
 */
export async function confluentConsumer(endpoint: KafkaEndpoint, settings: KafkaSettings, names: RunNames, options: ConsumerOptions): Promise<ConsumerClient> {
  const { KafkaConsumer } = loadConfluent() as unknown as { KafkaConsumer: new (conf: Record<string, unknown>, topicConf: Record<string, unknown>) => RdkafkaConsumer };
  const c = settings.consumer;
  const topic = topicName(names, endpoint);
  const core = new ConsumerCore(topic, c, options);
  const out = throttledLog(options.log);
  const generations = new GenerationWait();
  /** Bumped by a seek or a (re)assignment of the partition: its messages not handed out yet are stale. */
  const epochs = new Map<number, number>();
  const bump = (p: number) => epochs.set(p, (epochs.get(p) ?? 0) + 1);
  /** The offset each partition was sought to and has not delivered yet: until it comes, the partition's messages are from before the seek. */
  const sought = new Map<number, number>();
  /** Seeks the loop still has to make (between consume calls). */
  const seeks = new Map<number, number>();
  let running = false;
  let closing = false;

  const config: Record<string, unknown> = {
    ...groupConfig(endpoint, c, names, options.id),
    'max.poll.interval.ms': c.maxPollIntervalMs ?? 300_000,
    'enable.auto.offset.store': false,
    log_level: 7,
    rebalance_cb: function (this: RdkafkaConsumer, err: { code: number } | undefined, assignment: { topic: string; partition: number }[]) {
      const parts = assignment.filter((a) => a.topic === topic).map((a) => a.partition);
      if (err?.code === ASSIGN) {
        for (const p of parts) {
          bump(p);
          sought.delete(p);
          seeks.delete(p);
        }
        generations.assign((generation) => core.assign(parts, generation));
        try {
          consumer.assign(assignment);
        } catch (e) {
          out(`assign failed: ${(e as Error).message}`);
        }
      } else if (err?.code === REVOKE) {
        generations.settle();
        void core.flush().then(() => {
          core.revoke(parts, generations.generation);
          for (const p of parts) bump(p);
          try {
            if (consumer.isConnected()) consumer.unassign();
          } catch (e) {
            out(`unassign failed: ${(e as Error).message}`);
          }
        });
      }
    },
  };
  // A topic property: given in the global config, the binding's (empty) default topic config would override it.
  const consumer = new KafkaConsumer(config, { 'auto.offset.reset': c.fromBeginning ? 'earliest' : 'latest' });
  consumer.on('event.log', ((m: { severity: number; message: string; fac?: string }) => {
    if (m.severity >= 7) {
      const joined = generationIn(m.message);
      if (joined !== undefined) generations.joined(joined);
      return;
    }
    out(`librdkafka ${m.severity <= 3 ? 'error' : 'warn'}: ${m.message}`);
  }) as never);
  consumer.on('event.error', ((err: Error) => out(`librdkafka error: Error: ${err.message}`)) as never);

  core.attach({
    seek: (partition, offset) => {
      bump(partition);
      sought.set(partition, offset);
      seeks.set(partition, offset);
    },
    commit: (offsets) =>
      new Promise<void>((resolve, reject) =>
        consumer.commitCb(
          offsets.map((o) => ({ topic, partition: o.partition, offset: o.offset })),
          (err) => (err ? reject(err instanceof Error ? err : new Error(String((err as { message?: string }).message ?? err))) : resolve()),
        ),
      ),
  });
  await new Promise<void>((resolve, reject) =>
    consumer.connect(null, (err) => (err ? reject(err instanceof Error ? err : new Error(String((err as { message?: string }).message ?? err))) : resolve())),
  );
  consumer.setDefaultConsumeTimeout(CONSUME_WAIT_MS);
  consumer.setDefaultIsTimeoutOnlyForFirstMessage(true);
  consumer.subscribe([topic]);

  /** The seeks asked for since the last consume call; one that fails is tried again next time. */
  const seekNow = async (): Promise<void> => {
    for (const [partition, offset] of [...seeks]) {
      seeks.delete(partition);
      await new Promise<void>((resolve) =>
        consumer.seek({ topic, partition, offset }, 5_000, (err) => {
          if (err && core.owns(partition) && !seeks.has(partition)) {
            out(`seek ${laneOf(partition)}@${offset} failed (trying again): ${(err as Error).message ?? err}`);
            seeks.set(partition, offset);
          }
          resolve();
        }),
      );
    }
  };
  const consumeBatch = (): Promise<RdkafkaMessage[]> =>
    new Promise((resolve) =>
      consumer.consume(CONSUME_BATCH, (err, messages) => {
        if (err) {
          out(`consume: ${err.message ?? String(err)}`);
          // Not a busy loop on a persistent error.
          setTimeout(() => resolve([]), 100);
        } else resolve(messages ?? []);
      }),
    );
  let loop: Promise<void> | undefined;
  const consumeLoop = async (): Promise<void> => {
    while (running) {
      if (seeks.size) await seekNow();
      const batch = await consumeBatch();
      // An assignment waiting for its generation is recorded before its partitions' messages.
      if (generations.waiting) await generations.settled;
      if (!running) return;
      // librdkafka's message objects themselves: no object of ours per message.
      const byPartition = new Map<number, RdkafkaMessage[]>();
      for (const m of batch) {
        if (m.topic !== topic) continue;
        const target = sought.get(m.partition);
        if (target !== undefined) {
          if (m.offset !== target) continue; // fetched before the seek took effect
          sought.delete(m.partition);
        }
        let list = byPartition.get(m.partition);
        if (!list) byPartition.set(m.partition, (list = []));
        list.push(m);
      }
      await handOutPartitions(core, byPartition, epochs, () => closing);
    }
  };

  return {
    async start(onDelivery: OnDelivery): Promise<void> {
      core.start(onDelivery);
      running = true;
      loop = consumeLoop().catch((err: Error) => out(`consume loop stopped: ${err.message}`));
    },
    ready: (timeoutMs) => core.ready(timeoutMs),
    commitsLater: true,
    async close(): Promise<void> {
      await core.flush();
      closing = true;
      core.close();
      running = false;
      // The consume call in flight returns within CONSUME_WAIT_MS; a handler still running is not waited for.
      await Promise.race([loop, sleep(CONSUME_WAIT_MS + 5_000)]);
      await new Promise<void>((resolve) => {
        try {
          consumer.unsubscribe();
          consumer.disconnect(() => resolve());
        } catch {
          resolve();
        }
      });
    },
  };
}
