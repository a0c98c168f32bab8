/**
 * The `broker:` section for `kind: servicebus`: a queue with or without sessions, its lock
 * duration and delivery limit, and how receivers renew their locks.
 */
import { InputError } from '../../harness/errors.ts';
import { settingsChecker } from '../../harness/broker/settings-check.ts';
import type { BrokerSettings } from '../../harness/broker/contract.ts';

export interface ServiceBusSettings extends BrokerSettings {
  kind: 'servicebus';
  /** Sessions on: the key is the session id; one receiver holds a session at a time. */
  sessions: boolean;
  lockDurationMs: number;
  maxDeliveryCount: number;
  /** The SDK's auto lock renewal (off: a receiver that stops renewing; locks expire). */
  autoLockRenewal: boolean;
  /** Sessions one consumer process holds at once (default: the consumer's maxInFlight). */
  maxConcurrentSessions?: number;
  /** A session receiver gives its session up after this long without a message. */
  sessionIdleMs: number;
  receiveBatch: number;
  /**
   * Sessions: a requeued (abandoned) message takes the rest of its session's batch back with it
   * (each abandoned, its delivery count raised), so it is handled again before them.
   */
  returnSessionOnFailure: boolean;
  /** external: a namespace's connection string (the run's queues are created in it). */
  connectionString?: string;
}

export const settingsSchema: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { const: 'servicebus' },
    sessions: { type: 'boolean', description: 'RequiresSession on the run queue, session id = key (default true)' },
    lockDurationMs: { type: 'integer', minimum: 1000, maximum: 300000, description: 'LockDuration (default 30000)' },
    maxDeliveryCount: { type: 'integer', minimum: 1, maximum: 2000, description: 'MaxDeliveryCount before $DeadLetterQueue (default 10)' },
    autoLockRenewal: { type: 'boolean', description: 'the SDK renews message and session locks (default true)' },
    maxConcurrentSessions: { type: 'integer', minimum: 1, maximum: 1000 },
    sessionIdleMs: { type: 'integer', minimum: 100, maximum: 60000, description: 'give a session up after this long idle (default 1000)' },
    receiveBatch: { type: 'integer', minimum: 1, maximum: 100, description: 'messages per receive call (default 10)' },
    returnSessionOnFailure: {
      type: 'boolean',
      description:
        'sessions: a requeue (abandon) also abandons the rest of the session\'s batch not handed out yet, so the failed message comes again before them; each counts a delivery, so innocent messages can reach maxDeliveryCount (default true)',
    },
    connectionString: { type: 'string', description: 'external runtime: the namespace connection string' },
  },
};

export const settingsErrors = settingsChecker(settingsSchema);

export function resolveSettings(raw: BrokerSettings): ServiceBusSettings {
  const errors = settingsErrors(raw);
  if (errors.length) throw new InputError('invalid Service Bus broker settings', errors);
  const s = raw as Partial<ServiceBusSettings>;
  return {
    ...s,
    kind: 'servicebus',
    sessions: s.sessions ?? true,
    lockDurationMs: s.lockDurationMs ?? 30_000,
    maxDeliveryCount: s.maxDeliveryCount ?? 10,
    autoLockRenewal: s.autoLockRenewal ?? true,
    sessionIdleMs: s.sessionIdleMs ?? 1_000,
    receiveBatch: s.receiveBatch ?? 10,
    returnSessionOnFailure: s.returnSessionOnFailure ?? true,
  };
}

/** ISO-8601 duration for a Service Bus property, whole seconds: PT30S. */
export function isoDuration(ms: number): string {
  return `PT${Math.max(1, Math.round(ms / 1000))}S`;
}
