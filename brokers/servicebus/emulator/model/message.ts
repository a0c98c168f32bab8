// A message as the broker stores it: the AMQP message the client sent plus broker-owned state.
import type { Message as AmqpMessage } from "rhea";

export type MessageState = "active" | "deferred" | "scheduled";

/** Numeric x-opt-message-state values the SDK reads. */
export const MESSAGE_STATE_CODE: Record<MessageState, number> = { active: 0, deferred: 1, scheduled: 2 };

/**
 * What a message lock needs of the session that holds it (sessions.ts's MessageSession): session
 * messages have no lock of their own, so their lock lasts as long as the session's.
 */
export interface SessionLock {
  readonly lockedUntil: number;
  /** The session's messages delivered under its lock and not yet settled. */
  readonly locked: Set<StoredMessage>;
}

export interface MessageLock {
  /** RFC-4122 uuid string; the wire form is derived from it by the protocol layer. */
  readonly token: string;
  /** Name of the AMQP link that received the message (or the $management caller's associated link). */
  readonly linkName: string | undefined;
  /** Set when the lock is the session lock (session messages have no lock of their own). */
  readonly session: SessionLock | undefined;
  /** Expiry of a message lock; session-bound locks use the session's lockedUntil instead. */
  until: number;
  timer: NodeJS.Timeout | undefined;
}

export interface StoredMessage {
  readonly seq: number;
  /** Delivery order inside the entity holding it (equals seq in the main queue). */
  order: number;
  readonly messageId: string;
  readonly sessionId: string | undefined;
  /** The decoded AMQP message as sent, with broker annotations added at delivery time. */
  amqp: AmqpMessage;
  enqueuedAt: number;
  expiresAt: number;
  /** Effective time-to-live: the message's own, capped by the queue's DefaultMessageTimeToLive. */
  ttlMs: number;
  /** Failed deliveries so far (abandon, lock expiry, session lock expiry); sent as header delivery-count. */
  deliveryCount: number;
  state: MessageState;
  scheduledAt: number | undefined;
  lock: MessageLock | undefined;
  /** True while the message has a live entry in its ready heap. */
  inReady: boolean;
}

export function lockedUntil(lock: MessageLock): number {
  return lock.session ? lock.session.lockedUntil : lock.until;
}

export const byOrder = (a: StoredMessage, b: StoredMessage): boolean => a.order < b.order;
