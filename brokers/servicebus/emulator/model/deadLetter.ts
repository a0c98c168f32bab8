// What dead-lettering does to a message: the reason and description land in its application
// properties (where every SDK reads them) and it becomes a fresh entry of the dead-letter queue.
import type { StoredMessage } from "./message.ts";

export const MAX_DELIVERY_REASON = "MaxDeliveryCountExceeded";
export const TTL_EXPIRED_REASON = "TTLExpiredException";
export const TTL_EXPIRED_DESCRIPTION = "The message expired and was dead lettered.";

export function maxDeliveryDescription(maxDeliveryCount: number): string {
  return `Message could not be consumed after ${maxDeliveryCount} delivery attempts.`;
}

export interface DeadLetterDetails {
  reason?: string;
  description?: string;
  /** Extra application properties the settling client asked to set ("propertiesToModify"). */
  properties?: Record<string, unknown>;
}

/** Merges properties into a message's application properties, ignoring null/undefined values. */
export function withApplicationProperties(
  message: StoredMessage["amqp"],
  properties: Record<string, unknown> | undefined,
): StoredMessage["amqp"] {
  if (!properties) return message;
  const merged: Record<string, unknown> = { ...(message.application_properties ?? {}) };
  for (const [k, v] of Object.entries(properties)) if (v !== undefined && v !== null) merged[k] = v;
  return { ...message, application_properties: merged } as StoredMessage["amqp"];
}

/**
 * The dead-letter queue's copy of a message. It keeps its sequence number, enqueued time and
 * delivery count (the service does the same); it is delivered in the order it was dead-lettered
 * (`order`) and never expires, since the DLQ does not observe time-to-live.
 */
export function deadLetterCopy(original: StoredMessage, details: DeadLetterDetails, order: number): StoredMessage {
  const props: Record<string, unknown> = { ...details.properties };
  if (details.reason !== undefined && details.reason !== null) props.DeadLetterReason = details.reason;
  if (details.description !== undefined && details.description !== null) {
    props.DeadLetterErrorDescription = details.description;
  }
  return {
    seq: original.seq,
    order,
    messageId: original.messageId,
    sessionId: original.sessionId,
    amqp: withApplicationProperties(original.amqp, props),
    enqueuedAt: original.enqueuedAt,
    expiresAt: Infinity,
    ttlMs: original.ttlMs,
    deliveryCount: original.deliveryCount,
    state: "active",
    scheduledAt: undefined,
    lock: undefined,
    inReady: false,
  };
}
