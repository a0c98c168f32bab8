/**
 * The `broker:` section for `kind: memory`: a broker inside the runner process, for fast tests
 * of the harness (never for judging a broker). Two topologies:
 *  - partitioned: a log per lane and one consumer group, like a Kafka topic; a lane has one
 *    reader at a time, the group commits the settled prefix, a rebalance hands lanes over and
 *    the new owner reads from the committed offset.
 *  - queue: one queue of competing consumers, like a RabbitMQ classic queue or an SQS standard
 *    queue; per-message settlement, a visibility timeout, dead-lettering after maxDeliveries.
 */
import { settingsChecker } from '../../harness/broker/settings-check.ts';
import type { BrokerSettings } from '../../harness/broker/contract.ts';
import { InputError } from '../../harness/errors.ts';

export interface MemorySettings extends BrokerSettings {
  kind: 'memory';
  mode: 'partitioned' | 'queue';
  /** partitioned: lanes of the run's topic (raised by add-partitions). */
  partitions: number;
  /** queue: a delivery left unsettled this long is given to the next consumer. */
  visibilityMs: number;
  /** queue: deliveries after which a message that comes back goes to the dead-letter queue (0: never). */
  maxDeliveries: number;
  /** partitioned: how long the group takes to re-form after a member joins or leaves. */
  rebalanceDelayMs: number;
}

export const settingsSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'memory' },
    mode: { enum: ['partitioned', 'queue'] },
    partitions: { type: 'integer', minimum: 1, maximum: 1024 },
    visibilityMs: { type: 'integer', minimum: 10, maximum: 3_600_000 },
    maxDeliveries: { type: 'integer', minimum: 0, maximum: 1000 },
    rebalanceDelayMs: { type: 'integer', minimum: 0, maximum: 60_000 },
  },
} as const;

const check = settingsChecker(settingsSchema);

export function resolveSettings(input: BrokerSettings): MemorySettings {
  const errors = check(input);
  if (errors.length) throw new InputError('invalid memory broker settings', errors);
  const s = input as Partial<MemorySettings>;
  return {
    kind: 'memory',
    mode: s.mode ?? 'partitioned',
    partitions: s.partitions ?? 3,
    visibilityMs: s.visibilityMs ?? 5_000,
    maxDeliveries: s.maxDeliveries ?? 0,
    rebalanceDelayMs: s.rebalanceDelayMs ?? 100,
  };
}
