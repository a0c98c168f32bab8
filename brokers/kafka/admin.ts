/**
 * BrokerAdmin for Kafka (kafkajs admin client, on the deployment's direct admin path when it
 * has one): the run's topic and consumer group, and the capabilities faults look for:
 * addPartitions, lanes, describeConsumerGroup (state, members, assignment, committed offsets)
 * and describeReplication (leader, replicas and ISR per partition).
 */
import kafkajs from 'kafkajs';
import type { Admin } from 'kafkajs';
import type { BrokerAdmin, RemainingReport, RunNames } from '../../harness/broker/contract.ts';
import { InfraError, InputError } from '../../harness/errors.ts';
import { sleep } from '../../harness/clock.ts';
import { laneOf } from './consumer-core.ts';
import { adminEndpoint, kafkajsConnection, type KafkaEndpoint } from './endpoint.ts';
import { groupId, topicName } from './names.ts';
import type { KafkaSettings } from './settings.ts';
import { shareDeadLetterTopic } from './share-group.ts';

const { Kafka, logLevel, AssignerProtocol } = kafkajs;

export interface KafkaAdmin extends BrokerAdmin {
  addPartitions(total: number): Promise<void>;
  lanes(): Promise<string[]>;
  describeConsumerGroup(): Promise<Record<string, unknown>>;
  describeReplication(): Promise<Record<string, unknown>>;
  remaining(): Promise<RemainingReport>;
  /** The kafkajs admin client itself, for tests and tools. */
  readonly client: Admin;
  /** A share group with a dead-letter topic: its records back into the run topic. */
  redriveDeadLetters?(): Promise<number>;
}

export async function kafkaAdmin(endpoint: KafkaEndpoint, settings: KafkaSettings, names: RunNames, log: (l: string) => void = () => {}): Promise<KafkaAdmin> {
  const kafka = new Kafka({
    ...kafkajsConnection(adminEndpoint(endpoint)),
    clientId: `${names.prefix}-admin`,
    connectionTimeout: 3_000,
    requestTimeout: 30_000,
    retry: { retries: 6, initialRetryTime: 200, maxRetryTime: 3_000 },
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
  } catch (err) {
    throw new InfraError(`Kafka admin could not connect to ${adminEndpoint(endpoint).bootstrapServers.join(',')}: ${(err as Error).message}`, [], { cause: err });
  }
  const topic = topicName(names, endpoint);
  const group = groupId(names);
  const share = settings.consumer.share;
  // A topic made beforehand (topic.name) gets no dead-letter topic of convoy's: it is not the run's to name.
  const deadLetterTopic = share?.deadLetterTopic && !endpoint.topic ? shareDeadLetterTopic(topic) : undefined;

  const partitions = async () => {
    const md = await admin.fetchTopicMetadata({ topics: [topic] });
    return (md.topics[0]?.partitions ?? []).slice().sort((a, b) => a.partitionId - b.partitionId);
  };

  /**
   * Waits until the topic has `count` partitions, each with a leader that serves it: metadata
   * can name a leader before that broker has taken the partition on, and the first produce
   * requests would then fail with NOT_LEADER (and be retried out of order). ListOffsets goes
   * to each leader and succeeds only once it serves the partition.
   */
  const waitPartitions = async (count: number, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const ps = await partitions().catch(() => []);
      if (ps.length >= count && ps.every((p) => p.leader >= 0)) {
        const offsets = await admin.fetchTopicOffsets(topic).catch(() => []);
        if (offsets.length >= count) return;
      }
      if (Date.now() > deadline) throw new InfraError(`topic ${topic}: ${ps.length} of ${count} partitions have a serving leader after ${timeoutMs / 1000} s`);
      await sleep(100);
    }
  };

  /** false when the cluster refused to create the topic (no rights): there is none to delete, and the user may not delete either. */
  let topicCreated: boolean | undefined;

  /**
   * A topic made beforehand (topic.name): it must exist with at least the scenario's partitions.
   * The run's own group starts at the topic's end, committed before any consumer joins, so
   * earlier runs' messages are never read and none of this run's can be missed.
   */
  const usePrecreated = async () => {
    const t = settings.topic;
    if (share) throw new InputError('external Kafka: topic.name with a share group (broker.consumer.share): not built yet (a share group cannot be started at the topic\'s end the way convoy starts its consumer group); leave topic.name out');
    const ps = await partitions().catch((err: Error) => {
      if (/UNKNOWN_TOPIC|does not host|AUTHORIZATION/i.test(err.message)) return [];
      throw err;
    });
    if (ps.length === 0) throw new InputError(`external Kafka: topic.name ${topic}: no such topic on the cluster (or this user may not describe it)`);
    if (ps.length < t.partitions) throw new InputError(`external Kafka: topic.name ${topic} has ${ps.length} partition(s), fewer than the scenario's broker.topic.partitions ${t.partitions}`);
    const ends = await admin.fetchTopicOffsets(topic);
    await admin.setOffsets({ groupId: group, topic, partitions: ends.map((p) => ({ partition: p.partition, offset: p.high })) });
    log(`using the topic made beforehand ${topic}: ${ps.length} partitions; group ${group} starts at its end`);
  };

  return {
    client: admin,
    created: () => [...(endpoint.topic ? [] : [`topic ${topic}`]), ...(deadLetterTopic ? [`topic ${deadLetterTopic}`] : []), `group ${group}`],
    async createDestinations(): Promise<void> {
      if (endpoint.topic) return usePrecreated();
      const t = settings.topic;
      // On a cluster convoy did not start, a topic the scenario gives no replication takes the
      // cluster's defaults (default.replication.factor, min.insync.replicas), as its own would.
      const clusterDefaults = !!endpoint.external && t.clusterDefaults === true;
      let created: boolean;
      try {
        // waitForLeaders would fail when this broker's metadata does not list the new topic yet
        // (KRaft propagates it asynchronously); waitPartitions below polls for it instead.
        created = await admin.createTopics({
          waitForLeaders: false,
          timeout: 30_000,
          topics: [
            clusterDefaults
              ? { topic, numPartitions: t.partitions, replicationFactor: -1 }
              : {
                  topic,
                  numPartitions: t.partitions,
                  replicationFactor: t.replicationFactor,
                  configEntries: [{ name: 'min.insync.replicas', value: String(t.minInsyncReplicas) }],
                },
          ],
        });
      } catch (err) {
        const e = err as { message: string; errors?: { message?: string; type?: string }[] };
        const detail = (e.errors ?? []).map((x) => `${x.type ?? ''} ${x.message ?? ''}`.trim());
        if (/AUTHORIZATION/i.test(`${e.message} ${detail.join(' ')}`)) {
          topicCreated = false;
          throw new InfraError(`creating topic ${topic}: not authorized (TOPIC_AUTHORIZATION_FAILED): this user may not create topics; give a topic made beforehand with topic.name (docs/external.md)`, detail, { cause: err });
        }
        throw new InfraError(`creating topic ${topic} (${t.partitions} partitions, RF ${clusterDefaults ? "the cluster's default" : t.replicationFactor}) failed: ${e.message}${detail.length ? ` (${detail.join('; ')})` : ''}`, detail, { cause: err });
      }
      if (!created) throw new InfraError(`topic ${topic} already exists: refusing to reuse another run's messages`);
      await waitPartitions(t.partitions);
      if (deadLetterTopic) {
        // The broker writes a share group's dead letters only to a topic that allows it.
        await admin.createTopics({
          waitForLeaders: false,
          timeout: 30_000,
          topics: [{ topic: deadLetterTopic, numPartitions: 1, replicationFactor: clusterDefaults ? -1 : t.replicationFactor, configEntries: [{ name: 'errors.deadletterqueue.group.enable', value: 'true' }] }],
        });
        log(`created the share group's dead-letter topic ${deadLetterTopic}`);
      }
      // Looking up the group's offsets makes the broker create __consumer_offsets now, so
      // consumers find their coordinator at once instead of retrying.
      await admin.fetchOffsets({ groupId: group, topics: [topic] }).catch(() => {});
      if (clusterDefaults) {
        const replicas = (await partitions())[0]?.replicas.length ?? 0;
        log(`created topic ${topic}: ${t.partitions} partitions, the cluster's default replication (RF ${replicas}) and min.insync.replicas`);
      } else log(`created topic ${topic}: ${t.partitions} partitions, RF ${t.replicationFactor}, min.insync.replicas ${t.minInsyncReplicas}`);
    },
    async deleteDestinations(): Promise<void> {
      // A pre-created topic is the user's: only the run's own group (and dead-letter topic) goes.
      const own = [...(!endpoint.topic && topicCreated !== false ? [topic] : []), ...(deadLetterTopic ? [deadLetterTopic] : [])];
      if (own.length) {
        await admin.deleteTopics({ topics: own, timeout: 30_000 }).catch((err: Error) => {
          if (!/UNKNOWN_TOPIC|does not host this topic/i.test(err.message)) throw err;
        });
      }
      // The group is empty once consumers closed; a group with members cannot be deleted.
      await admin.deleteGroups([group]).catch((err: Error) => log(`deleting group ${group}: ${err.message}`));
    },
    async close(): Promise<void> {
      await admin.disconnect();
    },
    async addPartitions(total: number): Promise<void> {
      const now = (await partitions()).length;
      if (total <= now) throw new InfraError(`topic ${topic} has ${now} partitions; cannot raise to ${total}`);
      await admin.createPartitions({ timeout: 30_000, topicPartitions: [{ topic, count: total }] });
      await waitPartitions(total);
    },
    async lanes(): Promise<string[]> {
      return (await partitions()).map((p) => laneOf(p.partitionId));
    },
    async describeConsumerGroup(): Promise<Record<string, unknown>> {
      const { groups } = await admin.describeGroups([group]);
      const g = groups[0];
      const committed = await admin.fetchOffsets({ groupId: group, topics: [topic] }).catch(() => []);
      const members = (g?.members ?? []).map((m) => {
        let lanes: string[] = [];
        try {
          const a = AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
          lanes = (a?.assignment[topic] ?? []).map(laneOf);
        } catch {
          /* undecodable (another protocol) */
        }
        return { memberId: m.memberId, clientId: m.clientId, host: m.clientHost, lanes };
      });
      return {
        group,
        state: g?.state,
        protocol: g?.protocol,
        members,
        committed: Object.fromEntries((committed[0]?.partitions ?? []).map((p) => [laneOf(p.partition), Number(p.offset)])),
        // The classic group protocol's DescribeGroups carries no generation id; the
        // consumers report theirs with each rebalance event.
      };
    },
    /**
     * The group's lag per partition: the high watermark less the committed offset (the log
     * start offset where the group committed nothing there). Records the group has not
     * committed past are still on the broker, whoever read them.
     */
    async remaining(): Promise<RemainingReport> {
      // A share group commits no offsets, and kafkajs cannot read its share-partition state.
      if (share) return { known: false, total: null, reason: 'a share group commits no offsets (its state is not readable from kafkajs)' } as RemainingReport;
      const ends = await admin.fetchTopicOffsets(topic);
      const committed = await admin.fetchOffsets({ groupId: group, topics: [topic] });
      const done = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
      const lanes: Record<string, number> = {};
      const detail: Record<string, { high: number; low: number; committed: number | null }> = {};
      let total = 0;
      for (const p of ends) {
        const high = Number(p.high);
        const low = Number(p.low);
        const c = done.get(p.partition);
        const from = c !== undefined && c >= 0 ? c : low;
        const lag = Math.max(0, high - Math.max(from, low));
        lanes[laneOf(p.partition)] = lag;
        detail[laneOf(p.partition)] = { high, low, committed: c !== undefined && c >= 0 ? c : null };
        total += lag;
      }
      return { known: true, total, lanes, detail: { group, partitions: detail } };
    },
    ...(deadLetterTopic ? { redriveDeadLetters: () => redriveShareDeadLetters(kafka, admin, deadLetterTopic, topic, names) } : {}),
    async describeReplication(): Promise<Record<string, unknown>> {
      const ps = await partitions();
      const lanes = Object.fromEntries(
        ps.map((p) => [laneOf(p.partitionId), { leader: p.leader, replicas: p.replicas, isr: p.isr, offline: p.offlineReplicas ?? [] }]),
      );
      return {
        topic,
        minInsyncReplicas: settings.topic.minInsyncReplicas,
        lanes,
        underReplicated: ps.filter((p) => p.isr.length < p.replicas.length).map((p) => laneOf(p.partitionId)),
        belowMinIsr: ps.filter((p) => p.isr.length < settings.topic.minInsyncReplicas).map((p) => laneOf(p.partitionId)),
      };
    },
  };
}

/**
 * A share group's dead letters back into the run topic: every record the dead-letter topic holds
 * now (the broker copied each with its key and value), read from its start by a consumer of its
 * own and produced again with the same key. Resolves with how many moved. The redriven record
 * is an old change, delivered after newer ones of its key.
 */
async function redriveShareDeadLetters(kafka: InstanceType<typeof Kafka>, admin: Admin, from: string, to: string, names: RunNames): Promise<number> {
  const ends = await admin.fetchTopicOffsets(from);
  const want = new Map(ends.filter((p) => Number(p.high) > Number(p.low)).map((p) => [p.partition, Number(p.high)]));
  const total = ends.reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
  if (total === 0) return 0;
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  const consumer = kafka.consumer({ groupId: `${names.prefix}-redrive-${Date.now()}`, sessionTimeout: 10_000 });
  await producer.connect();
  await consumer.connect();
  let moved = 0;
  try {
    await consumer.subscribe({ topic: from, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new InfraError(`redrive: read ${moved} of the ${total} records of ${from} in 30 s`)), 30_000);
      consumer
        .run({
          eachMessage: async ({ partition, message }) => {
            if (Number(message.offset) >= (want.get(partition) ?? 0)) return;
            await producer.send({ topic: to, acks: -1, messages: [{ key: message.key, value: message.value }] });
            moved++;
            if (Number(message.offset) + 1 >= (want.get(partition) ?? 0)) want.delete(partition);
            if (want.size === 0) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect().catch(() => {});
    await producer.disconnect().catch(() => {});
  }
  return moved;
}
