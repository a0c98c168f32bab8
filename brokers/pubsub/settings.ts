/**
 * The `broker:` section of a scenario for `kind: pubsub`: its JSON Schema and its defaults.
 * Every field is optional in the YAML; resolveSettings() fills in the rest, and the result
 * records the resolved form.
 */
import { settingsChecker } from '../../harness/broker/settings-check.ts';
import type { BrokerSettings } from '../../harness/broker/contract.ts';
import { InputError } from '../../harness/errors.ts';

export type ResumeMode = 'never' | 'immediate' | 'delayed';

export type EmulatorName = 'pstest' | 'convoy';

export interface PubsubSettings extends BrokerSettings {
  kind: 'pubsub';
  /**
   * local runtime: which emulator. `pstest` (default): Google's Go fake, one message per
   * ordering key at a time, no cascade. `convoy`: convoy's own (brokers/pubsub/emulator/), which
   * hands out several messages of a key at once and redelivers a key's later messages after a
   * redelivery, as the service does.
   */
  emulator: EmulatorName;
  /**
   * convoy's emulator only: most outstanding messages of one ordering key (the subscription label
   * convoy-outstanding-per-key). 0 (default): only flow control limits them, as on the service.
   */
  outstandingPerKey: number;
  /** The subscription's retry policy (backoff between redeliveries); absent = redeliver at once. */
  retryPolicy?: { minimumBackoffMs: number; maximumBackoffMs: number };
  /** The project topics and subscriptions live in (any name works on pstest). */
  projectId: string;
  /** The subscription's enableMessageOrdering; producers then publish with orderingKey = key. */
  messageOrdering: boolean;
  /**
   * The subscription's ackDeadlineSeconds, and the deadline the subscriber client asks for
   * (it is pinned: min = max = this). The real service takes 10..600; pstest also takes less.
   */
  ackDeadlineSeconds: number;
  deadLetter: {
    enabled: boolean;
    /** The dead-letter policy's maxDeliveryAttempts (5..100, as the real service allows). */
    maxDeliveryAttempts: number;
  };
  subscriber: {
    /**
     * The client's maxExtensionTime: how long it keeps extending the deadline of a message it
     * was given and that was not acked or nacked (a slow handler, or `release`). Past it the
     * lease lapses and the service redelivers the message when its deadline expires.
     */
    maxExtensionSeconds: number;
    /** StreamingPull streams per subscriber (the client's streamingOptions.maxStreams). */
    streams: number;
    /** How long acks and modacks wait to be sent in a batch (the client's default is 100 ms). */
    ackBatchMs: number;
  };
  publisher: {
    /** The client's batching: at most this many messages, or this long, per Publish request. */
    batchMaxMessages: number;
    batchMaxMs: number;
    /**
     * After a failed publish with an ordering key the client pauses that key: every later
     * publish of it fails until resumePublishing(key). `never`: the key stays paused for the
     * run; `immediate`: resume as soon as the failure is reported; `delayed`: after resumeDelayMs.
     */
    resume: ResumeMode;
    resumeDelayMs: number;
    /**
     * Who keeps a failed key paused. `client`: @google-cloud/pubsub itself. Measured with 5.3.1,
     * it fails the publishes queued behind the failed one but then drops the key's queue, so
     * the next publish goes out without resumePublishing (see README). `convoy`: the producer
     * also refuses the key's sends itself (SendFailure, definite) until `resume` lets it go,
     * which is the behaviour Google documents for its clients.
     */
    pausedKeys: 'client' | 'convoy';
    /** Total time a publish may take, the client's retries included (gax timeout). */
    timeoutMs: number;
  };
  /** external runtime: a gcloud emulator's host:port (else the real service, with ADC credentials). */
  emulatorHost?: string;
}

const positiveInt = { type: 'integer', minimum: 1 } as const;

export const settingsSchema: Record<string, unknown> = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Google Cloud Pub/Sub broker settings (pstest locally)',
  type: 'object',
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'pubsub' },
    projectId: { type: 'string', pattern: '^[a-z][a-z0-9-]{4,28}[a-z0-9]$', description: 'default convoy-local' },
    messageOrdering: { type: 'boolean', description: 'default true' },
    emulator: { enum: ['pstest', 'convoy'], description: 'local runtime: default pstest; convoy = convoy\'s emulator, faithful to ordering keys\' cascade redelivery' },
    outstandingPerKey: { type: 'integer', minimum: 0, maximum: 10000, description: 'emulator convoy: most outstanding messages per ordering key; default 0 = flow control only (the service)' },
    retryPolicy: {
      type: 'object',
      additionalProperties: false,
      required: ['minimumBackoffMs', 'maximumBackoffMs'],
      properties: { minimumBackoffMs: { type: 'integer', minimum: 0, maximum: 600000 }, maximumBackoffMs: { type: 'integer', minimum: 0, maximum: 600000 } },
    },
    ackDeadlineSeconds: { ...positiveInt, maximum: 600, description: 'default 10; the real service needs >= 10' },
    deadLetter: {
      type: 'object',
      additionalProperties: false,
      properties: { enabled: { type: 'boolean' }, maxDeliveryAttempts: { type: 'integer', minimum: 5, maximum: 100 } },
    },
    subscriber: {
      type: 'object',
      additionalProperties: false,
      properties: {
        maxExtensionSeconds: { ...positiveInt, maximum: 86400 },
        streams: { ...positiveInt, maximum: 32 },
        ackBatchMs: { type: 'integer', minimum: 0, maximum: 10000 },
      },
    },
    publisher: {
      type: 'object',
      additionalProperties: false,
      properties: {
        batchMaxMessages: { ...positiveInt, maximum: 1000 },
        batchMaxMs: { type: 'integer', minimum: 0, maximum: 10000 },
        resume: { enum: ['never', 'immediate', 'delayed'] },
        resumeDelayMs: { type: 'integer', minimum: 0, maximum: 3600000 },
        pausedKeys: { enum: ['client', 'convoy'] },
        timeoutMs: { ...positiveInt, maximum: 600000 },
      },
    },
    emulatorHost: { type: 'string', pattern: '^[^:/\\s]+:[0-9]+$' },
  },
};

/** Schema errors as "broker.<path>: message" lines, naming unknown keys and allowed values. */
export const settingsErrors = settingsChecker(settingsSchema);

/** Validates against the schema, then fills in defaults. Throws InputError on bad input. */
export function resolveSettings(input: BrokerSettings): PubsubSettings {
  const errors = settingsErrors(input);
  if (errors.length) throw new InputError('invalid Pub/Sub broker settings', errors);
  const s = input as Partial<PubsubSettings> & { kind: 'pubsub' };
  const resolved: PubsubSettings = {
    kind: 'pubsub',
    projectId: s.projectId ?? 'convoy-local',
    messageOrdering: s.messageOrdering ?? true,
    emulator: s.emulator ?? 'pstest',
    outstandingPerKey: s.outstandingPerKey ?? 0,
    ackDeadlineSeconds: s.ackDeadlineSeconds ?? 10,
    deadLetter: { enabled: s.deadLetter?.enabled ?? s.deadLetter !== undefined, maxDeliveryAttempts: 5, ...s.deadLetter },
    subscriber: { maxExtensionSeconds: 3600, streams: 1, ackBatchMs: 10, ...s.subscriber },
    publisher: { batchMaxMessages: 100, batchMaxMs: 10, resume: 'immediate', resumeDelayMs: 1000, pausedKeys: 'client', timeoutMs: 60_000, ...s.publisher },
  };
  if (s.emulatorHost !== undefined) resolved.emulatorHost = s.emulatorHost;
  if (s.retryPolicy !== undefined) resolved.retryPolicy = s.retryPolicy;
  const problems: string[] = [];
  if (resolved.outstandingPerKey > 0 && resolved.emulator !== 'convoy') problems.push('broker.outstandingPerKey: only convoy\'s emulator has this setting (add broker.emulator: convoy)');
  if (s.retryPolicy && s.retryPolicy.minimumBackoffMs > s.retryPolicy.maximumBackoffMs) problems.push('broker.retryPolicy: minimumBackoffMs is more than maximumBackoffMs');
  if (problems.length) throw new InputError('invalid Pub/Sub broker settings', problems);
  return resolved;
}

/** `emulator: convoy` is a local process: the containers and external runtimes refuse it. */
export function refuseConvoyEmulator(settings: PubsubSettings, runtime: string): void {
  if (settings.emulator === 'convoy') throw new InputError(`broker.emulator: convoy runs on the local runtime only, not ${runtime} (remove it, or use --runtime local)`);
}
