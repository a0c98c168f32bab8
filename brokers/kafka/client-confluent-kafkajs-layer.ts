/**
 * The @confluentinc/kafka-javascript consumer on the library's KafkaJS-compatible layer
 * (`require('@confluentinc/kafka-javascript').KafkaJS`), chosen with `broker.consumer.api:
 * kafkajs-layer`. convoy's default confluent consumer runs on the node-rdkafka-style
 * `KafkaConsumer` instead (client-confluent.ts; the layer cost most of the consumer's time per
 * message in `npm run bench -- consume`); this one stays for what only the layer does, such as the known-bugs
 * scenario about its message cache (docs/known-bugs.md, bug 6).
 *
 * eachBatch with manual offset resolution (consumer-core.ts has the semantics), a rebalance_cb
 * that commits the settled prefix before partitions are revoked, eager `roundrobin` assignment.
 * Every setting is a librdkafka property at the top level of the config; the `kafkaJS` block
 * carries only the logger. max.poll.interval.ms: the layer hands librdkafka twice the value it
 * is given (it uses the first half to expire its message cache), so this adapter gives it half
 * of maxPollIntervalMs: librdkafka then really leaves the group after maxPollIntervalMs without
 * a poll, which is what the setting means.
 */
import type { ConsumerClient, ConsumerOptions, Delivery, RunNames, OnDelivery } from '../../harness/broker/contract.ts';
import { ASSIGN, REVOKE, generationIn, groupConfig, loadConfluent } from './client-confluent.ts';
import { ConsumerCore, throttledLog } from './consumer-core.ts';
import type { KafkaEndpoint } from './endpoint.ts';
import { topicName } from './names.ts';
import type { KafkaSettings } from './settings.ts';

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


export async function confluentLayerConsumer(endpoint: KafkaEndpoint, settings: KafkaSettings, names: RunNames, options: ConsumerOptions): Promise<ConsumerClient> {
  const { KafkaJS } = loadConfluent();
  const c = settings.consumer;
  const topic = topicName(names, endpoint);
  const core = new ConsumerCore(topic, c, options);
  // librdkafka's cgrp debug lines are the only place it names the group generation.
  // (a few hundred lines per 20k messages with per-settlement commits: cheap).
  let generation: number | undefined;
  const onDebug = (m: string) => (generation = generationIn(m) ?? generation);
  const config: Record<string, unknown> = {
    ...groupConfig(endpoint, c, names, options.id),
    'max.poll.interval.ms': Math.ceil((c.maxPollIntervalMs ?? 300_000) / 2),
    'auto.offset.reset': c.fromBeginning ? 'earliest' : 'latest',
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
    async start(onDelivery: OnDelivery): Promise<void> {
      core.start(onDelivery);
      await consumer.run({
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: c.partitionsConsumedConcurrently,
        eachBatch: (payload) => core.handOutBatch({ ...payload, heartbeat: undefined }),
      });
    },
    ...core.lifecycle(() => consumer.disconnect()),
  };
}
