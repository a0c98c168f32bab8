/**
 * Share groups (KafkaShareConsumer, queue-style consumers on one partition): the settings of
 * `broker.consumer.share`, the rules that refuse what a share group cannot do, and where each
 * setting goes on the Kafka version in use. Settings moved between broker and group configs
 * across versions (read from each version's GroupConfig and ShareGroupConfig):
 * - 4.2: the lock duration and offset reset are group configs; the delivery-count limit is the
 *   broker's only (group.share.delivery.count.limit); RENEW acknowledgements need no switch.
 * - 4.3: the delivery-count limit is a group config too; RENEW needs the group config
 *   share.renew.acknowledge.enable (default false).
 * - 4.4: a share group may have a dead-letter topic (group config
 *   errors.deadletterqueue.topic.name, named `dlq.` and something, whose topic config
 *   errors.deadletterqueue.group.enable is true).
 */
export interface ShareSettings {
  /** share.acknowledgement.mode: implicit (every record of a poll accepted on the next poll) or explicit (each settled as handled). */
  acknowledgement: 'implicit' | 'explicit';
  /** How many deliveries a record gets before the broker archives it. */
  deliveryCountLimit: number;
  /** share.record.lock.duration.ms: how long a consumer holds a record before the broker gives it to another. */
  lockDurationMs: number;
  /** share.auto.offset.reset: where a new share group starts. */
  autoOffsetReset: 'earliest' | 'latest';
  /** Explicit mode: renew the lock of a record still in a handler (RENEW acknowledgements, 4.2 on). */
  renewLocks: boolean;
  /** Explicit mode, 4.4 on: rejected and archived records go to the topic `dlq.<run topic>`. */
  deadLetterTopic: boolean;
  /**
   * What the consumers set on the group through the admin API: the scenario's extra group
   * configs with the above over them (on Kafka versions that have them as group configs). The
   * dead-letter topic's configs are added by the client, which knows the topic's name.
   */
  groupConfigs: Record<string, string>;
}

/** The oldest Kafka with share groups production-ready. */
export const SHARE_MIN_VERSION = '4.2.0';
/** The group's dead-letter topic for a run topic (the broker's default prefix is `dlq.`). */
export const shareDeadLetterTopic = (topic: string): string => `dlq.${topic}`;

const int = (minimum: number, maximum: number, description: string) => ({ type: 'integer', minimum, maximum, description });

export const shareSchema: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  description: 'groupProtocol share only: the share group (KafkaShareConsumer, several consumers on one partition)',
  properties: {
    acknowledgement: { enum: ['implicit', 'explicit'], description: 'share.acknowledgement.mode: explicit (default: each record accepted, released or rejected as it is settled) or implicit (every record of a poll accepted on the next poll, failed or not)' },
    deliveryCountLimit: int(2, 10, 'deliveries of a record before the broker archives it (default 5; a group config from Kafka 4.3, the broker config group.share.delivery.count.limit on 4.2)'),
    lockDurationMs: int(1000, 60_000, 'share.record.lock.duration.ms: how long a consumer holds a record before the broker gives it to another (default 30000)'),
    autoOffsetReset: { enum: ['earliest', 'latest'], description: "share.auto.offset.reset: where a new share group starts (default earliest; Kafka's own default, latest, makes the records sent before the first consumer joined look lost)" },
    renewLocks: { type: 'boolean', description: 'explicit only: renew the lock of a record still in a handler, every lockDurationMs / 2 (RENEW acknowledgements, Kafka 4.2 on; default false)' },
    deadLetterTopic: { type: 'boolean', description: 'explicit only, Kafka 4.4 on: the group writes rejected and archived records to the topic dlq.<run topic>, which the redrive fault sends back (default false)' },
    groupConfigs: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: "more group configs, set through the admin API before the consumers join (the resolved settings list every one convoy sets; the settings above win over these)",
    },
  },
};

/** Major and minor of an exact version; "latest" (or anything else) is the newest. */
function minorOf(version: string): number {
  const m = /^(\d+)\.(\d+)\.\d+$/.exec(version);
  return m ? Number(m[1]) * 100 + Number(m[2]) : Number.MAX_SAFE_INTEGER;
}

/** A version (exact, or latest) that has share groups production-ready. */
export function hasShareGroups(version: string): boolean {
  return minorOf(version) >= minorOf(SHARE_MIN_VERSION);
}

/**
 * The consumer settings only classic and consumer-protocol groups have, refused on a share
 * group unless they hold the value resolution fills in (which sets nothing: settings resolved
 * once are resolved again).
 */
const NOT_SHARE_DEFAULTS: Record<string, unknown> = { sessionTimeoutMs: 45_000, heartbeatIntervalMs: 5_000, autoCommit: true, autoCommitIntervalMs: 5_000, fromBeginning: true, metadataMaxAgeMs: 300_000 };
const NOT_SHARE: Record<string, string> = {
  sessionTimeoutMs: 'a share group\'s session timeout is the broker\'s group.share.session.timeout.ms',
  heartbeatIntervalMs: 'a share group\'s heartbeat interval is the broker\'s group.share.heartbeat.interval.ms',
  maxPollIntervalMs: 'a share consumer has no max.poll.interval.ms: a record held past share.lockDurationMs goes to another consumer',
  autoCommit: 'a share group commits no offsets: each record is acknowledged',
  autoCommitIntervalMs: 'a share group commits no offsets: each record is acknowledged',
  fromBeginning: 'a share group starts where share.autoOffsetReset says',
  assignor: 'the broker assigns a share group\'s partitions itself',
  staticMembership: 'a share group has no static members',
  metadataMaxAgeMs: 'the broker tells a share group of new partitions',
};

/**
 * Checks and resolves the share settings of a consumer section (`c`, raw) for a Kafka version
 * and client; pushes every problem to `errors`. Returns undefined when the group is no share group.
 */
export function resolveShare(c: Record<string, any>, opts: { client: string; version: string; javaClientVersion?: string; brokerConfig: Record<string, unknown> }, errors: string[]): ShareSettings | undefined {
  if (c.groupProtocol !== 'share') {
    if (c.share !== undefined) errors.push(`broker.consumer.share: share group settings need broker.consumer.groupProtocol: share (this group is ${c.groupProtocol ?? 'classic'})`);
    return undefined;
  }
  if (opts.client !== 'java') {
    errors.push(`broker.consumer.groupProtocol share: share groups need KafkaShareConsumer, which only the Java client has; set broker.client: java (not ${opts.client})`);
  }
  if (!hasShareGroups(opts.version)) {
    errors.push(`broker.consumer.groupProtocol share: Kafka ${opts.version} has share groups only as early access or preview; set broker.version to ${SHARE_MIN_VERSION} or later (or latest)`);
  }
  if (opts.javaClientVersion && !hasShareGroups(opts.javaClientVersion)) {
    errors.push(`broker.javaClient.version ${opts.javaClientVersion}: its KafkaShareConsumer predates production-ready share groups; use ${SHARE_MIN_VERSION} or later`);
  }
  for (const [key, why] of Object.entries(NOT_SHARE)) {
    if (c[key] !== undefined && c[key] !== NOT_SHARE_DEFAULTS[key]) errors.push(`broker.consumer.${key}: not a share group setting (${why}); leave it out, or use groupProtocol classic or consumer`);
  }
  const s = (c.share ?? {}) as Record<string, any>;
  const minor = minorOf(opts.version);
  const share: ShareSettings = {
    acknowledgement: s.acknowledgement ?? 'explicit',
    deliveryCountLimit: s.deliveryCountLimit ?? 5,
    lockDurationMs: s.lockDurationMs ?? 30_000,
    autoOffsetReset: s.autoOffsetReset ?? 'earliest',
    renewLocks: s.renewLocks ?? false,
    deadLetterTopic: s.deadLetterTopic ?? false,
    groupConfigs: { ...((s.groupConfigs ?? {}) as Record<string, string>) },
  };
  if (share.acknowledgement === 'implicit') {
    if (share.renewLocks) errors.push('broker.consumer.share.renewLocks: renewing a lock is an explicit acknowledgement (RENEW); set share.acknowledgement: explicit');
    if (share.deadLetterTopic) errors.push('broker.consumer.share.deadLetterTopic: in implicit mode every record is accepted, so none is rejected; set share.acknowledgement: explicit');
  }
  if (share.deadLetterTopic && minor < 404) {
    errors.push(`broker.consumer.share.deadLetterTopic: share groups have dead-letter topics from Kafka 4.4 (this is ${opts.version}); set broker.version to 4.4.0 or later`);
  }
  const g = share.groupConfigs;
  g['share.auto.offset.reset'] = share.autoOffsetReset;
  g['share.record.lock.duration.ms'] = String(share.lockDurationMs);
  if (minor >= 403) {
    g['share.delivery.count.limit'] = String(share.deliveryCountLimit);
    if (share.renewLocks) g['share.renew.acknowledge.enable'] = 'true';
  } else if (s.deliveryCountLimit !== undefined) {
    // 4.2 has it only as a broker config: the broker convoy starts gets it.
    const set = opts.brokerConfig['group.share.delivery.count.limit'];
    if (set !== undefined && String(set) !== String(share.deliveryCountLimit)) {
      errors.push(`broker.consumer.share.deliveryCountLimit ${share.deliveryCountLimit}: on Kafka ${opts.version} it is the broker config group.share.delivery.count.limit, which brokerConfig sets to ${String(set)}; set one of them`);
    }
    opts.brokerConfig['group.share.delivery.count.limit'] = share.deliveryCountLimit;
  }
  return share;
}
