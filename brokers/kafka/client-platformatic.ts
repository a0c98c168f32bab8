/**
 * Producer and consumer on @platformatic/kafka 2.x, a client in plain JavaScript.
 *
 * Producer: the library has no linger; as with kafkajs, the send() calls of one tick go to it as
 * one send(), in call order. Its default partitioner is murmur2 without Java's sign mask (a key
 * lands on another partition than with the Java client, kafkajs or librdkafka's murmur2), so the
 * adapter uses its `compatibilityPartitioner`, the Java one, and computes each message's
 * partition itself (an offset per message follows from the base offset of its partition).
 * maxInFlight is the library's `maxInflights`: requests at once per connection, every API alike;
 * with idempotence the library sets it to 1 (settings.ts refuses more).
 *
 * Consumer: the library's MessagesStream in the classic group protocol (round-robin, eager),
 * read in batches; see consumer-core.ts for delivery and settlement. Heartbeats run on a timer
 * of their own, so a blocked handler never makes the member leave the group (there is no
 * max.poll.interval.ms); only a dead or frozen process does. Offsets are committed by
 * settlement (the library's autocommit would commit what was fetched).
 */
import { compatibilityPartitioner, Consumer, Producer, type Message, type MessagesStream } from '@platformatic/kafka';
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
import { sleep } from '../../harness/clock.ts';
import { ConsumerCore, handOutPartitions, throttledLog, type BatchMessage } from './consumer-core.ts';
import { DEFINITE_TYPES } from './client-kafkajs.ts';
import { platformaticOptions } from './client-config.ts';
import { tickBatcher } from './tick-batch.ts';
import { platformaticConnection, type KafkaEndpoint } from './endpoint.ts';
import { clientId, groupId, topicName } from './names.ts';
import type { KafkaSettings } from './settings.ts';

/** Definite only when every attempt's error guarantees nothing was written. */
export function isDefinitePlatformaticError(err: unknown): boolean {
  const leaves: unknown[] = [];
  const walk = (e: unknown, depth: number): void => {
    const errors = (e as { errors?: unknown[] } | undefined)?.errors;
    if (Array.isArray(errors) && errors.length && depth < 6) for (const x of errors) walk(x, depth + 1);
    else leaves.push(e);
  };
  walk(err, 0);
  return leaves.length > 0 && leaves.every((e) => DEFINITE_TYPES.has((e as { apiId?: string } | undefined)?.apiId ?? ''));
}

export async function platformaticProducer(endpoint: KafkaEndpoint, settings: KafkaSettings, names: RunNames, options: ProducerOptions): Promise<ProducerClient> {
  const p = settings.producer;
  const topic = topicName(names, endpoint);
  const producer = new Producer({
    ...platformaticConnection(endpoint),
    clientId: clientId(names, options.id),
    connectTimeout: 3_000,
    timeout: p.requestTimeoutMs,
    retries: p.retries,
    // A fixed delay in the library; convoy's defaults back off 100 ms (the library's own: 1000).
    retryDelay: p.retryBackoffMs ?? (p.defaults === 'client' ? 1_000 : 100),
    maxInflights: p.maxInFlight,
    idempotent: p.idempotent,
    acks: p.acks,
    autocreateTopics: false,
    ...(p.metadataMaxAgeMs !== undefined ? { metadataMaxAge: p.metadataMaxAgeMs } : {}),
    ...platformaticOptions(endpoint.clientConfig, 'producer'),
  } as ConstructorParameters<typeof Producer>[0]);
  // Metadata (and a connection) before the first send.
  let partitions = (await producer.metadata({ topics: [topic] })).topics.get(topic)!.partitionsCount;
  const partitionFor = (key: Buffer): number => compatibilityPartitioner(undefined as never, key) % partitions;

  const batcher = tickBatcher(
    (key) => partitionFor(Buffer.from(key)),
    async (messages) => {
      const result = await producer.send({ acks: p.acks, messages: messages.map((m) => ({ topic, key: Buffer.from(m.key), value: m.payload, partition: m.partition, ...(m.headers ? { headers: m.headers } : {}) })) });
      return new Map((result.offsets ?? []).filter((o) => o.offset >= 0n).map((o) => [o.partition, Number(o.offset)]));
    },
    (err) => new SendFailure((err as Error).message, isDefinitePlatformaticError(err), { cause: err }),
  );

  return {
    send: batcher.send,
    async refreshMetadata(): Promise<void> {
      partitions = (await producer.metadata({ topics: [topic], forceUpdate: true })).topics.get(topic)!.partitionsCount;
    },
    async close(): Promise<void> {
      batcher.flush();
      await producer.close();
    },
  };
}

/** How long one read of the stream waits for messages before the loop looks at seeks and closing again. */
const READ_WAIT_MS = 500;

/**
 * The stream is read in batches (whatever it holds), handed to the core partition by partition
 * (each in offset order, the partitions side by side), and read again once every message of the
 * batch was handed out or dropped: a blocked handler stops the reads, the stream's buffer fills
 * and it stops fetching. The library has no seek on a stream; its fetch position per partition
 * is the stream's `offsetsToFetch` map, which a requeue sets back. A fetch in flight then still
 * answers from the old position (and moves it on again): until the sought offset itself
 * arrives, the partition's messages are dropped and the position set back. The same holds after
 * each assignment: the stream starts each partition at the offset it announces with `offsets`
 * (the committed one), and a fetch of the previous generation that lands after it is dropped.
 * A stream that fails (the library ends it on a fetch or metadata error, e.g. a cut link) is
 * replaced by a new one, which starts again from the committed offsets.
 */
export async function platformaticConsumer(endpoint: KafkaEndpoint, settings: KafkaSettings, names: RunNames, options: ConsumerOptions): Promise<ConsumerClient> {
  const c = settings.consumer;
  const topic = topicName(names, endpoint);
  const core = new ConsumerCore(topic, c, options);
  const out = throttledLog(options.log);
  const consumer = new Consumer<Buffer, Buffer, Buffer, Buffer>({
    ...platformaticConnection(endpoint),
    clientId: clientId(names, options.id),
    groupId: groupId(names),
    connectTimeout: 3_000,
    retries: 10,
    retryDelay: 100,
    sessionTimeout: c.sessionTimeoutMs,
    heartbeatInterval: c.heartbeatIntervalMs,
    rebalanceTimeout: Math.max(c.sessionTimeoutMs, 60_000),
    metadataMaxAge: c.metadataMaxAgeMs,
    autocommit: false,
    maxWaitTime: 500,
    ...platformaticOptions(endpoint.clientConfig, 'consumer'),
  } as ConstructorParameters<typeof Consumer<Buffer, Buffer, Buffer, Buffer>>[0]);
  /** Bumped by a seek or a (re)assignment of the partition: its messages not handed out yet are stale. */
  const epochs = new Map<number, number>();
  const bump = (p: number) => epochs.set(p, (epochs.get(p) ?? 0) + 1);
  /** The offset each partition was set to and has not delivered yet. */
  const sought = new Map<number, number>();
  let current: number[] = [];
  let stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | undefined;
  let running = false;
  let closing = false;
  /** Ends the loop's wait for messages. */
  let wake: (() => void) | undefined;
  const key = (partition: number) => `${topic}:${partition}`;

  consumer.on('consumer:group:rebalance', () => void core.flush());
  consumer.on('consumer:group:join', (e) => {
    const next = (e.assignments?.find((a) => a.topic === topic)?.partitions ?? []).slice().sort((a, b) => a - b);
    for (const p of new Set([...current, ...next])) {
      bump(p);
      sought.delete(p);
    }
    core.revoke(current, e.generationId);
    current = next;
    core.assign(next, e.generationId);
  });
  consumer.on('consumer:group:leave', (e) => {
    for (const p of current) bump(p);
    core.revoke(current, e.generationId);
    current = [];
  });
  consumer.on('consumer:heartbeat:error', (e) => out(`platformatic heartbeat error: ${e.error.message}`));

  core.attach({
    seek: (partition, offset) => {
      bump(partition);
      sought.set(partition, offset);
      stream?.offsetsToFetch.set(key(partition), BigInt(offset));
    },
    commit: (offsets) => consumer.commit({ offsets: offsets.map((o) => ({ topic, partition: o.partition, offset: BigInt(o.offset), leaderEpoch: -1 })) }),
  });

  const openStream = async (): Promise<MessagesStream<Buffer, Buffer, Buffer, Buffer>> => {
    const s = await consumer.consume({ topics: [topic], mode: 'committed', fallbackMode: c.fromBeginning ? 'earliest' : 'latest', autocommit: false });
    // Where the stream starts each assigned partition (at first, and after every join).
    s.on('offsets', () => {
      for (const p of current) {
        const at = s.offsetsToFetch.get(key(p));
        if (at !== undefined) sought.set(p, Number(at));
      }
    });
    s.on('error', (err: Error) => out(`platformatic stream failed: ${err.message}`));
    // A 'readable' listener for the stream's life: the stream fetches only while someone reads
    // (a stream with none, flowing null, stops fetching), and it wakes the loop's read.
    s.on('readable', () => wake?.());
    s.on('close', () => wake?.());
    for (const p of current) {
      const at = s.offsetsToFetch.get(key(p));
      if (at !== undefined) sought.set(p, Number(at));
    }
    return s;
  };

  /** What the stream holds now, or what arrives within READ_WAIT_MS. */
  const readBatch = async (s: MessagesStream<Buffer, Buffer, Buffer, Buffer>): Promise<Message<Buffer, Buffer, Buffer, Buffer>[]> => {
    const take = () => {
      const got: Message<Buffer, Buffer, Buffer, Buffer>[] = [];
      for (let m = s.read() as Message<Buffer, Buffer, Buffer, Buffer> | null; m !== null; m = s.read() as typeof m) got.push(m);
      return got;
    };
    const now = take();
    if (now.length || s.destroyed) return now;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => done(), READ_WAIT_MS);
      const done = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
      wake = done;
    });
    return take();
  };
  let loop: Promise<void> | undefined;
  const consumeLoop = async (): Promise<void> => {
    while (running) {
      if (!stream || stream.destroyed) {
        if (stream) {
          // A new stream starts from the committed offsets: what the old one handed out is stale.
          for (const p of current) bump(p);
          core.revoke(current, consumer.generationId);
          core.assign(current, consumer.generationId);
          await sleep(500);
          if (!running) return;
        }
        try {
          stream = await openStream();
        } catch (err) {
          out(`platformatic consume failed (trying again): ${(err as Error).message}`);
          stream = undefined;
          await sleep(1_000);
          continue;
        }
      }
      const s = stream;
      const batch = await readBatch(s);
      if (!running) return;
      const byPartition = new Map<number, BatchMessage[]>();
      for (const m of batch) {
        if (m.topic !== topic || !current.includes(m.partition)) continue;
        const offset = Number(m.offset);
        const target = sought.get(m.partition);
        if (target !== undefined) {
          if (offset !== target) {
            // Fetched from the old position: set it back (the fetch moved it on).
            if (offset > target) s.offsetsToFetch.set(key(m.partition), BigInt(target));
            continue;
          }
          sought.delete(m.partition);
        }
        let list = byPartition.get(m.partition);
        if (!list) byPartition.set(m.partition, (list = []));
        list.push({ offset, value: m.value });
      }
      await handOutPartitions(core, byPartition, epochs, () => closing);
    }
  };

  // Joins the group; the first assignment makes the consumer ready.
  stream = await openStream();

  return {
    async start(onDelivery: OnDelivery): Promise<void> {
      core.start(onDelivery);
      running = true;
      loop = consumeLoop().catch((err: Error) => out(`platformatic consume loop stopped: ${err.message}`));
    },
    ready: (timeoutMs) => core.ready(timeoutMs),
    commitsLater: true,
    async close(): Promise<void> {
      await core.flush();
      closing = true;
      core.close();
      running = false;
      await Promise.race([loop, sleep(READ_WAIT_MS + 5_000)]);
      await Promise.race([consumer.close(true).catch((err: Error) => out(`platformatic close: ${err.message}`)), sleep(10_000)]);
    },
  };
}
