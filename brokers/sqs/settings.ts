/**
 * The `broker:` section of a scenario for `kind: sqs`: its JSON Schema and its defaults.
 * Every field is optional in the YAML; resolveSettings() fills in the rest, and the result
 * records the resolved form.
 */
import { settingsChecker } from '../../harness/broker/settings-check.ts';
import type { BrokerSettings } from '../../harness/broker/contract.ts';
import { InputError } from '../../harness/errors.ts';

export type QueueType = 'standard' | 'fifo';

export interface SqsSettings extends BrokerSettings {
  kind: 'sqs';
  /** ElasticMQ version for the local runtime (Maven Central) and the containers image tag. */
  version: string;
  /** standard: no order, at-least-once; fifo: order and one consumer at a time per MessageGroupId. */
  queueType: QueueType;
  /** FIFO only: the queue's ContentBasedDeduplication attribute. */
  contentBasedDeduplication: boolean;
  /**
   * FIFO only: what the producer sends as MessageDeduplicationId. `explicit`: producer.key.seq
   * from the payload header; `content`: none, the queue hashes the body (needs
   * contentBasedDeduplication).
   */
  deduplication: 'explicit' | 'content';
  /** The queue's VisibilityTimeout: how long a received message stays hidden (and its group blocked). */
  visibilityTimeoutSeconds: number;
  deadLetter: {
    enabled: boolean;
    /** The RedrivePolicy's maxReceiveCount: receives after which the queue moves a message to the DLQ. */
    maxReceiveCount: number;
    /**
     * What the `dead-letter` settlement does (SQS has no "send to DLQ" call):
     * `exhaust-receives`: ChangeMessageVisibility 0, so the message is received again until the
     *   queue itself moves it after maxReceiveCount receives (the broker's own redrive; every
     *   extra receive goes through the handler again);
     * `move`: SendMessage to the DLQ, then DeleteMessage (what applications do by hand; a crash
     *   between the two leaves a copy in both).
     */
    settle: 'exhaust-receives' | 'move';
  };
  receive: {
    /** Long-poll wait per ReceiveMessage (0..20 s). Small so consumers stop quickly. */
    waitTimeSeconds: number;
    /** MaxNumberOfMessages per ReceiveMessage (1..10); also capped by the free in-flight slots. */
    maxMessages: number;
    /** ReceiveMessage calls a consumer keeps open at once. */
    pollers: number;
    /**
     * FIFO: when a message is settled requeue, release or dead-letter (exhaust-receives), give
     * back the later messages of its group that came in the same batch and were not handed out
     * yet, instead of handling them before the failed one comes back (AWS's advice for keeping
     * a group's order on failure). Off: they are handled, so the group's order breaks.
     */
    returnGroupOnFailure: boolean;
    /**
     * Extend a received message's visibility (ChangeMessageVisibility back to
     * visibilityTimeoutSeconds once half of it has passed) while the harness handles it or holds
     * it unsettled (a resequencer's held message), as a consumer's visibility heartbeat does.
     * Off (the SDK's own behaviour): a message handled or held longer than the visibility
     * timeout is received again, by this consumer or another.
     */
    extendVisibility: boolean;
  };
  producer: {
    /**
     * Send a key's next message only after its previous send finished, so the queue sees each
     * key's messages in send order (the sender's half of FIFO ordering). Off: sends overlap.
     */
    serializePerKey: boolean;
    /** 1: SendMessage per message; 2..10: SendMessageBatch of up to this many. */
    batchSize: number;
    /** How long a partly filled batch waits for more messages. */
    lingerMs: number;
  };
  client: {
    /** The SDK's maxAttempts (its own retries of throttling, 5xx and network errors). */
    maxAttempts: number;
    /** Per-request socket timeout on top of the long-poll wait. */
    requestTimeoutMs: number;
    connectTimeoutMs: number;
    maxSockets: number;
  };
  /** external runtime: region and endpoint (default: the region's public endpoint). */
  region?: string;
  endpoint?: string;
}

const positiveInt = { type: 'integer', minimum: 1 } as const;

export const settingsSchema: Record<string, unknown> = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'SQS broker settings (ElasticMQ locally)',
  type: 'object',
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'sqs' },
    version: { type: 'string', pattern: '^1\\.[0-9]+\\.[0-9]+$', description: 'ElasticMQ version; default 1.7.1' },
    queueType: { enum: ['standard', 'fifo'], description: 'default fifo' },
    contentBasedDeduplication: { type: 'boolean', description: 'FIFO only; default false' },
    deduplication: { enum: ['explicit', 'content'], description: 'FIFO only; default explicit (producer.key.seq)' },
    visibilityTimeoutSeconds: { type: 'integer', minimum: 0, maximum: 43200, description: 'default 30' },
    deadLetter: {
      type: 'object',
      additionalProperties: false,
      properties: {
        enabled: { type: 'boolean' },
        maxReceiveCount: { ...positiveInt, maximum: 1000 },
        settle: { enum: ['exhaust-receives', 'move'] },
      },
    },
    receive: {
      type: 'object',
      additionalProperties: false,
      properties: {
        waitTimeSeconds: { type: 'integer', minimum: 0, maximum: 20 },
        maxMessages: { ...positiveInt, maximum: 10 },
        pollers: { ...positiveInt, maximum: 50 },
        returnGroupOnFailure: { type: 'boolean' },
        extendVisibility: { type: 'boolean', description: 'extend visibility while a message is handled or held (default false)' },
      },
    },
    producer: {
      type: 'object',
      additionalProperties: false,
      properties: {
        serializePerKey: { type: 'boolean' },
        batchSize: { ...positiveInt, maximum: 10 },
        lingerMs: { type: 'integer', minimum: 0, maximum: 10000 },
      },
    },
    client: {
      type: 'object',
      additionalProperties: false,
      properties: {
        maxAttempts: { ...positiveInt, maximum: 10 },
        requestTimeoutMs: { ...positiveInt, maximum: 600000 },
        connectTimeoutMs: { ...positiveInt, maximum: 600000 },
        maxSockets: { ...positiveInt, maximum: 10000 },
      },
    },
    region: { type: 'string', pattern: '^[a-z0-9-]+$' },
    endpoint: { type: 'string', pattern: '^https?://' },
  },
};

/** Schema errors as "broker.<path>: message" lines, naming unknown keys and allowed values. */
export const settingsErrors = settingsChecker(settingsSchema);

/** Validates against the schema, then fills in defaults. Throws InputError on bad input. */
export function resolveSettings(input: BrokerSettings): SqsSettings {
  const errors = settingsErrors(input);
  if (errors.length) throw new InputError('invalid SQS broker settings', errors);
  const s = input as Partial<SqsSettings> & { kind: 'sqs' };
  const queueType = s.queueType ?? 'fifo';
  const problems: string[] = [];
  if (queueType === 'standard' && s.contentBasedDeduplication) problems.push('broker.contentBasedDeduplication: FIFO queues only (queueType: fifo)');
  if (queueType === 'standard' && s.deduplication === 'content') problems.push('broker.deduplication: FIFO queues only (queueType: fifo)');
  if (s.deduplication === 'content' && s.contentBasedDeduplication === false) {
    problems.push('broker.deduplication: content needs contentBasedDeduplication: true (the queue must hash the body)');
  }
  const deadLetter = { enabled: s.deadLetter?.enabled ?? s.deadLetter !== undefined, maxReceiveCount: 3, settle: 'exhaust-receives' as const, ...s.deadLetter };
  if (problems.length) throw new InputError('invalid SQS broker settings', problems);
  const deduplication = s.deduplication ?? 'explicit';
  const resolved: SqsSettings = {
    kind: 'sqs',
    version: s.version ?? '1.7.1',
    queueType,
    contentBasedDeduplication: s.contentBasedDeduplication ?? deduplication === 'content',
    deduplication,
    visibilityTimeoutSeconds: s.visibilityTimeoutSeconds ?? 30,
    deadLetter,
    receive: { waitTimeSeconds: 1, maxMessages: 10, pollers: 1, returnGroupOnFailure: true, extendVisibility: false, ...s.receive },
    producer: { serializePerKey: true, batchSize: 1, lingerMs: 5, ...s.producer },
    client: { maxAttempts: 3, requestTimeoutMs: 10_000, connectTimeoutMs: 3_000, maxSockets: 50, ...s.client },
  };
  if (s.region !== undefined) resolved.region = s.region;
  if (s.endpoint !== undefined) resolved.endpoint = s.endpoint;
  return resolved;
}
