/**
 * The message payload: a compact binary header, then padding up to the requested size.
 *
 *   offset size
 *   0      2    magic "cv"
 *   2      1    format version (1)
 *   3      1    flags: bit 0 poison, bit 1 intended time present, bit 2 service stamp present
 *   4      1    entity kind (0 order, 1 wallet, 2 counter)
 *   5      1    producer name length P (bytes, UTF-8)
 *   6      2    key length K (uint16 LE)
 *   8      1    event name length E
 *   9      3    reserved (0)
 *   12     4    seq (uint32 LE) = the entity version
 *   16     8    intended send time, µs on the run clock (float64 LE; 0 when absent)
 *   24     4    checksum: FNV-1a 32 of bytes 0..23 (checksum zeroed) and the names
 *   28     P+K+E  producer, key, event name
 *   ...    8    with flag bit 2: the service's wall-clock stamp, ms since the epoch (float64 LE),
 *               as the producing service would write it (its own clock, which a clock-skew
 *               fault may shift; never the run clock the harness measures with)
 *   ...    1+R  with flag bit 3: the run id (length R, then R bytes), on destinations that runs
 *               share (a topic made beforehand), where consumers pass over other runs' messages
 *   ...         padding (a fixed pseudo-random pattern, so compression cannot shrink it)
 *
 * A message never gets smaller than its header; `encodedSize` says how large it will be.
 * decode() returns null for anything that is not such a payload (the consumer then records
 * key and seq null).
 */
import { ENTITY_KINDS, entityEvent, type EntityKind } from './entity.ts';

export const HEADER_BYTES = 28;
const MAGIC0 = 0x63; // c
const MAGIC1 = 0x76; // v
const FORMAT = 1;

export interface MessageFields {
  producer: string;
  key: string;
  seq: number;
  entity: EntityKind;
  /** The event's name; default: the whole-state event of that version (entity.ts). */
  event?: string;
  /** Intended send time on the run clock (µs); null or absent when there is none. */
  intendedUs?: number | null;
  poison: boolean;
  /** The service's wall-clock stamp (ms since the epoch); absent when the sender gave none. */
  stampMs?: number | null;
  /** The run that sent it, on a destination runs share; absent otherwise. */
  run?: string;
}

export interface DecodedMessage extends MessageFields {
  /** Absent when the sender gave none. */
  intendedUs?: number;
  stampMs?: number;
  event: string;
  /** The payload's length in bytes. */
  size: number;
}

const PAD = (() => {
  const b = Buffer.allocUnsafe(64 * 1024);
  let x = 0x2545f491;
  for (let i = 0; i < b.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
})();

const STAMP_BYTES = 8;

export function encodedSize(fields: Pick<MessageFields, 'producer' | 'key' | 'seq' | 'entity' | 'event' | 'stampMs' | 'run'>, size: number): number {
  const names =
    Buffer.byteLength(fields.producer) + Buffer.byteLength(fields.key) + (fields.event ?? entityEvent(fields.entity, fields.seq)).length;
  return Math.max(size, HEADER_BYTES + names + (fields.stampMs != null ? STAMP_BYTES : 0) + runBytes(fields.run));
}

function runBytes(run: string | undefined): number {
  return run === undefined ? 0 : 1 + Buffer.byteLength(run);
}

/**
 * The UTF-8 bytes of the producer and event names a process sends again and again (a few
 * dozen at most; beyond NAMES_KEPT, made afresh each time).
 */
const nameBytes = new Map<string, Buffer>();
const NAMES_KEPT = 256;
function bytesOfName(name: string): Buffer {
  let b = nameBytes.get(name);
  if (b === undefined) {
    b = Buffer.from(name, 'utf8');
    if (nameBytes.size < NAMES_KEPT) nameBytes.set(name, b);
  }
  return b;
}

/** A key's length in UTF-8 bytes: its length when it is ASCII (keys usually are), else counted. */
function keyBytes(key: string): number {
  for (let i = 0; i < key.length; i++) if (key.charCodeAt(i) > 0x7f) return Buffer.byteLength(key);
  return key.length;
}

/** Copies a short byte string in place (a copy() call costs more than a loop over a few bytes). */
function put(buf: Buffer, at: number, bytes: Buffer): number {
  for (let i = 0; i < bytes.length; i++) buf[at + i] = bytes[i]!;
  return at + bytes.length;
}

export function encode(fields: MessageFields, size: number): Buffer {
  const event = fields.event ?? entityEvent(fields.entity, fields.seq);
  const producer = bytesOfName(fields.producer);
  const eventBytes = bytesOfName(event);
  const p = producer.length;
  const k = keyBytes(fields.key);
  const e = eventBytes.length;
  if (p > 255 || k > 65535 || e > 255) throw new RangeError('producer, key or event name too long for the payload');
  if (!Number.isInteger(fields.seq) || fields.seq < 0 || fields.seq > 0xffffffff) throw new RangeError(`bad seq ${fields.seq}`);
  const kind = ENTITY_KINDS.indexOf(fields.entity);
  if (kind < 0) throw new RangeError(`unknown entity kind ${fields.entity}`);
  const stamped = fields.stampMs != null;
  if (fields.run !== undefined && Buffer.byteLength(fields.run) > 255) throw new RangeError('run id too long for the payload');
  const body = HEADER_BYTES + p + k + e + (stamped ? STAMP_BYTES : 0) + runBytes(fields.run);
  const total = Math.max(size, body);
  const buf = Buffer.allocUnsafe(total);
  buf[0] = MAGIC0;
  buf[1] = MAGIC1;
  buf[2] = FORMAT;
  buf[3] = (fields.poison ? 1 : 0) | (fields.intendedUs != null ? 2 : 0) | (stamped ? 4 : 0) | (fields.run !== undefined ? 8 : 0);
  buf[4] = kind;
  buf[5] = p;
  buf.writeUInt16LE(k, 6);
  buf[8] = e;
  buf[9] = buf[10] = buf[11] = 0;
  buf.writeUInt32LE(fields.seq, 12);
  buf.writeDoubleLE(fields.intendedUs ?? 0, 16);
  buf.writeUInt32LE(0, 24);
  let o = put(buf, HEADER_BYTES, producer);
  if (k === fields.key.length) {
    for (let i = 0; i < k; i++) buf[o + i] = fields.key.charCodeAt(i);
    o += k;
  } else o += buf.write(fields.key, o, 'utf8');
  o = put(buf, o, eventBytes);
  if (stamped) {
    buf.writeDoubleLE(fields.stampMs!, o);
    o += STAMP_BYTES;
  }
  if (fields.run !== undefined) {
    buf[o] = Buffer.byteLength(fields.run);
    buf.write(fields.run, o + 1, 'utf8');
  }
  buf.writeUInt32LE(fnv(buf, 0, body), 24);
  for (let at = body; at < total; at += PAD.length) PAD.copy(buf, at, 0, Math.min(PAD.length, total - at));
  return buf;
}

/**
 * The string last decoded at one place of the payload, given again while the bytes are the
 * same: a consumer reads the same producer name and the same few event names in message after
 * message, and comparing a few bytes costs less than decoding them into a new string.
 */
class LastString {
  private bytes = new Uint8Array(32);
  private length = -1;
  private text = '';

  read(b: Buffer, from: number, to: number, encoding: 'utf8' | 'latin1'): string {
    const n = to - from;
    if (n === this.length) {
      let same = true;
      for (let i = 0; i < n; i++) {
        if (b[from + i] !== this.bytes[i]) {
          same = false;
          break;
        }
      }
      if (same) return this.text;
    }
    this.text = b.toString(encoding, from, to);
    if (n > this.bytes.length) this.bytes = new Uint8Array(n);
    this.bytes.set(b.subarray(from, to));
    this.length = n;
    return this.text;
  }
}
const lastProducer = new LastString();
const lastEvent = new LastString();

export function decode(buf: Uint8Array | null | undefined): DecodedMessage | null {
  if (!buf || buf.length < HEADER_BYTES) return null;
  const b = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b[0] !== MAGIC0 || b[1] !== MAGIC1 || b[2] !== FORMAT) return null;
  const flags = b[3];
  if (flags & ~15) return null;
  const entity = ENTITY_KINDS[b[4]];
  if (!entity) return null;
  const p = b[5];
  const k = b.readUInt16LE(6);
  const e = b[8];
  const names = HEADER_BYTES + p + k + e;
  const stampEnd = names + (flags & 4 ? STAMP_BYTES : 0);
  if (flags & 8 && stampEnd >= b.length) return null;
  const body = stampEnd + (flags & 8 ? 1 + b[stampEnd] : 0);
  if (body > b.length || b[9] !== 0 || b[10] !== 0 || b[11] !== 0) return null;
  const stored = b.readUInt32LE(24);
  if (fnv(b, 0, body) !== stored) return null;
  const seq = b.readUInt32LE(12);
  const intended = b.readDoubleLE(16);
  const producer = lastProducer.read(b, HEADER_BYTES, HEADER_BYTES + p, 'utf8');
  const key = b.toString('utf8', HEADER_BYTES + p, HEADER_BYTES + p + k);
  const event = lastEvent.read(b, HEADER_BYTES + p + k, names, 'latin1');
  const intendedUs = flags & 2 ? intended : undefined;
  const poison = (flags & 1) === 1;
  if (flags & 8) {
    const run = b.toString('utf8', stampEnd + 1, body);
    return { producer, key, seq, entity, event, intendedUs, ...(flags & 4 ? { stampMs: b.readDoubleLE(names) } : {}), poison, run, size: b.length };
  }
  // Two literals rather than a spread of an optional part: one object per message, same key order.
  if (flags & 4) return { producer, key, seq, entity, event, intendedUs, stampMs: b.readDoubleLE(names), poison, size: b.length };
  return { producer, key, seq, entity, event, intendedUs, poison, size: b.length };
}

/** FNV-1a 32 over buf[from, to), treating bytes 24..27 (the checksum field) as zero. */
function fnv(buf: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  // Three loops rather than a test per byte: this runs over every message a consumer reads.
  const checksumAt = Math.min(Math.max(from, 24), to);
  const checksumEnd = Math.min(Math.max(from, 28), to);
  for (let i = from; i < checksumAt; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
  for (let i = checksumAt; i < checksumEnd; i++) h = Math.imul(h, 0x01000193);
  for (let i = checksumEnd; i < to; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
  return h >>> 0;
}

/** Names the workers use. Without `entity`, the order lifecycle names the event. */
export function encodeMessage(fields: Omit<MessageFields, 'entity'> & { entity?: EntityKind }, size: number): Buffer {
  // No copy when the entity is named (the producer's every message).
  return encode(fields.entity ? (fields as MessageFields) : { ...fields, entity: 'order' }, size);
}
export const decodeMessage = decode;
