// Wire encodings the Service Bus dialect needs on top of plain AMQP: lock tokens in .NET Guid
// byte order, .NET ticks, typed longs/timestamps, broker annotations and batched messages.
import rhea from "rhea";
import type { Message as AmqpMessage } from "rhea";
import { lockedUntil, MESSAGE_STATE_CODE, type MessageLock, type StoredMessage } from "../model/message.ts";

export const types = rhea.types;
export const BATCH_MESSAGE_FORMAT = 0x80013700;
const TICKS_AT_UNIX_EPOCH = 621355968000000000n;

export function uuidToBytes(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ""), "hex");
}

export function bytesToUuid(bytes: Buffer): string {
  const h = bytes.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** .NET writes a Guid's first three groups little-endian; the SDK swaps them back from the tag. */
export function dotnetGuidBytes(uuid: string): Buffer {
  const b = uuidToBytes(uuid);
  return Buffer.from([b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6], ...b.subarray(8)]);
}

/** Delivery tag for a lock token: the SDK turns it back into the same uuid string. */
export function lockTokenTag(token: string): Buffer {
  return dotnetGuidBytes(token);
}

/** An AMQP long holding .NET ticks (100 ns since 0001-01-01), as in com.microsoft:locked-until-utc. */
export function ticksLong(ms: number): unknown {
  const ticks = BigInt(Math.round(ms)) * 10000n + TICKS_AT_UNIX_EPOCH;
  const buf = Buffer.alloc(8);
  buf.writeBigInt64BE(ticks);
  return types.wrap_long(buf);
}

export function longValue(n: number): unknown {
  return types.wrap_long(n);
}

export function timestamp(ms: number): unknown {
  return types.wrap_timestamp(ms);
}

/** Numbers arrive as JS numbers, or 8-byte buffers when large; sequence numbers stay below 2^53. */
export function toNumber(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  if (Buffer.isBuffer(value) && value.length === 8) return Number(value.readBigInt64BE());
  if (value && typeof value === "object" && "value" in value) return toNumber((value as { value: unknown }).value);
  throw new TypeError(`expected a number, got ${String(value)}`);
}

/** Encodes a stored message for a transfer or a $management reply, adding broker annotations. */
export function encodeStoredMessage(msg: StoredMessage, lock?: MessageLock): Buffer {
  const annotations: Record<string, unknown> = {
    ...(msg.amqp.message_annotations ?? {}),
    "x-opt-sequence-number": longValue(msg.seq),
    "x-opt-enqueued-time": timestamp(msg.enqueuedAt),
  };
  if (lock) annotations["x-opt-locked-until"] = timestamp(lockedUntil(lock));
  if (msg.state !== "active") annotations["x-opt-message-state"] = types.wrap_int(MESSAGE_STATE_CODE[msg.state]);
  if (msg.scheduledAt !== undefined) annotations["x-opt-scheduled-enqueue-time"] = timestamp(msg.scheduledAt);
  const out: Record<string, unknown> = {
    ...msg.amqp,
    delivery_count: msg.deliveryCount,
    message_annotations: annotations,
  };
  // Header ttl is a uint: only set it when the effective TTL fits, so the SDK's expiresAtUtc is right.
  if (Number.isFinite(msg.ttlMs) && msg.ttlMs < 0xffffffff) out.ttl = msg.ttlMs;
  return rhea.message.encode(out);
}

/** A batch transfer is one AMQP message whose data sections are each an encoded message. */
export function decodeBatch(payload: Buffer): AmqpMessage[] {
  const outer = rhea.message.decode(payload) as unknown as {
    body?: { typecode?: number; content?: unknown; multiple?: boolean };
  };
  const body = outer.body;
  if (!body || body.typecode !== 0x75) throw new Error("batch message without data sections");
  const sections = (body.multiple ? body.content : [body.content]) as Buffer[];
  return sections.map((s) => rhea.message.decode(s) as unknown as AmqpMessage);
}

export function decodeMessage(payload: Buffer): AmqpMessage {
  return rhea.message.decode(payload) as unknown as AmqpMessage;
}
