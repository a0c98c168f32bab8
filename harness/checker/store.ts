/**
 * Columnar storage of a history: what the final pass needs and nothing more, in typed arrays
 * with interned strings. Validates each event as it is stored (the history format is in
 * issue 3) and returns the reason when an event is unusable.
 */
import { Interner } from './interner.ts';
import {
  F_AT, F_CONSUMER, F_END, F_KEY, F_KIND, F_LANE, F_NAME, F_OFFSET, F_OK, F_OUTCOME, F_PHASE, F_PRODUCER, F_SEQ, F_START, F_TYPE,
  K_ABSENT, K_FALSE, K_NULL, K_NUMBER, K_STRING, K_TRUE,
  type Fields,
} from './lineParser.ts';
import { F64List, I32List, PairIndex, StreamIndex, nextCapacity, resized } from './columns.ts';

export const MAX_SEQ = 2147483647;

/** Process outcome codes. */
export const OUT_NONE = 0;
export const OUT_OK = 1;
export const OUT_ERROR = 2;

/** Message ack flags. */
export const ACK_ANY_TRUE = 1;
export const ACK_ANY_UNKNOWN = 2; // an ack with ok null or missing

export interface FaultMark {
  name: string;
  kind: string | null;
  phase: 'start' | 'end';
  at: number;
}

export class HistoryStore {
  readonly keys = new Interner();
  readonly producers = new Interner();
  readonly consumers = new Interner();
  readonly lanes = new Interner();

  /** Streams: (producer id, key id) -> stream id; `streams.a` = producer, `streams.b` = key. */
  readonly streams = new StreamIndex();
  /** Messages: (stream id, seq) -> message id; `messages.a` = stream, `messages.b` = seq. */
  readonly messages = new PairIndex(1 << 12);
  // Per message, indexed by message id; grown in step with `messages`.
  sendCount = new Int32Array(1 << 12);
  ackCount = new Int32Array(1 << 12);
  ackFlags = new Uint8Array(1 << 12);
  firstSend = new Float64Array(1 << 12).fill(NaN);
  firstAck = new Float64Array(1 << 12).fill(NaN);

  // Process events, indexed by event id.
  events = 0;
  /** Message id, or -(phantom row + 1) when key, producer or seq could not identify one. */
  evMsg = new Int32Array(1 << 12);
  evConsumer = new Int32Array(1 << 12);
  evLane = new Int32Array(1 << 12);
  evOffset = new Float64Array(1 << 12);
  evStart = new Float64Array(1 << 12);
  evEnd = new Float64Array(1 << 12);
  evOutcome = new Uint8Array(1 << 12);

  // Process events that name no message (null key/producer/seq, or a seq no send can have).
  readonly phKey = new I32List(64);
  readonly phProducer = new I32List(64);
  readonly phSeq = new F64List(64);

  readonly faults: FaultMark[] = [];
  /** Events of the four types read here, and of other types. */
  counted = 0;
  ignored = 0;

  /** Stores one event; returns null, or why the event is unusable. */
  ingest(f: Fields): string | null {
    const kind = f.kind;
    if (kind[F_TYPE] !== K_STRING) return kind[F_TYPE] === K_ABSENT ? 'missing "type"' : '"type" must be a string';
    const type = f.str[F_TYPE];
    if (type === 'process') return this.ingestProcess(f);
    if (type === 'send') return this.ingestSendOrAck(f, true);
    if (type === 'ack') return this.ingestSendOrAck(f, false);
    if (type === 'fault') return this.ingestFault(f);
    this.ignored++;
    return null;
  }

  private ingestSendOrAck(f: Fields, isSend: boolean): string | null {
    const { kind, num } = f;
    if (kind[F_KEY] !== K_STRING) return '"key" must be a string';
    if (kind[F_PRODUCER] !== K_STRING) return '"producer" must be a string';
    const seq = num[F_SEQ];
    if (kind[F_SEQ] !== K_NUMBER || !Number.isInteger(seq) || seq < 1 || seq > MAX_SEQ) return `"seq" must be an integer from 1 to ${MAX_SEQ}`;
    const at = num[F_AT];
    if (kind[F_AT] !== K_NUMBER || !Number.isFinite(at)) return '"at" must be a finite number';
    let flag = 0;
    if (!isSend) {
      const ok = kind[F_OK];
      if (ok === K_TRUE) flag = ACK_ANY_TRUE;
      else if (ok === K_NULL || ok === K_ABSENT) flag = ACK_ANY_UNKNOWN;
      else if (ok !== K_FALSE) return '"ok" must be true, false or null';
    }
    const m = this.messageId(f, seq);
    if (isSend) {
      this.sendCount[m]++;
      if (!(this.firstSend[m] <= at)) this.firstSend[m] = at;
    } else {
      this.ackCount[m]++;
      this.ackFlags[m] |= flag;
      if (!(this.firstAck[m] <= at)) this.firstAck[m] = at;
    }
    this.counted++;
    return null;
  }

  private ingestProcess(f: Fields): string | null {
    const { kind, num, str } = f;
    const kKey = kind[F_KEY];
    const kProducer = kind[F_PRODUCER];
    const kSeq = kind[F_SEQ];
    if (kKey !== K_STRING && kKey !== K_NULL && kKey !== K_ABSENT) return '"key" must be a string or null';
    if (kProducer !== K_STRING && kProducer !== K_NULL && kProducer !== K_ABSENT) return '"producer" must be a string or null';
    if (kSeq !== K_NUMBER && kSeq !== K_NULL && kSeq !== K_ABSENT) return '"seq" must be a number or null';
    const start = num[F_START];
    if (kind[F_START] !== K_NUMBER || !Number.isFinite(start)) return '"start" must be a finite number';
    let end = NaN;
    const kEnd = kind[F_END];
    if (kEnd !== K_NULL && kEnd !== K_ABSENT) {
      end = num[F_END];
      if (kEnd !== K_NUMBER || !Number.isFinite(end)) return '"end" must be a finite number or null';
      if (end < start) return '"end" is before "start"';
    }
    let out = OUT_NONE;
    const kOutcome = kind[F_OUTCOME];
    if (kOutcome === K_STRING) {
      const o = str[F_OUTCOME];
      if (o === 'ok') out = OUT_OK;
      else if (o === 'error') out = OUT_ERROR;
      else return '"outcome" must be "ok", "error" or null';
    } else if (kOutcome !== K_NULL && kOutcome !== K_ABSENT) return '"outcome" must be "ok", "error" or null';
    let consumerId = -1;
    const kConsumer = kind[F_CONSUMER];
    if (kConsumer === K_STRING) consumerId = f.intern(F_CONSUMER, this.consumers);
    else if (kConsumer !== K_NULL && kConsumer !== K_ABSENT) return '"consumer" must be a string';
    let laneId = -1;
    const kLane = kind[F_LANE];
    if (kLane === K_STRING) laneId = f.intern(F_LANE, this.lanes);
    else if (kLane === K_NUMBER && Number.isFinite(num[F_LANE])) laneId = this.lanes.id(String(num[F_LANE]));
    else if (kLane !== K_NULL && kLane !== K_ABSENT) return '"lane" must be a string or a number';
    let offset = NaN;
    const kOffset = kind[F_OFFSET];
    if (kOffset === K_NUMBER && Number.isFinite(num[F_OFFSET])) offset = num[F_OFFSET];
    else if (kOffset === K_STRING && /^-?\d+(\.\d+)?$/.test(str[F_OFFSET])) offset = Number(str[F_OFFSET]);
    else if (kOffset !== K_NULL && kOffset !== K_ABSENT) return '"offset" must be a number';

    let msg: number;
    const seq = kSeq === K_NUMBER ? num[F_SEQ] : NaN;
    if (kKey === K_STRING && kProducer === K_STRING && Number.isInteger(seq) && seq >= 1 && seq <= MAX_SEQ) {
      msg = this.messageId(f, seq);
    } else {
      // No send can have this identity: a phantom whatever else the history holds.
      const row = this.phKey.length;
      this.phKey.push(kKey === K_STRING ? f.intern(F_KEY, this.keys) : -1);
      this.phProducer.push(kProducer === K_STRING ? f.intern(F_PRODUCER, this.producers) : -1);
      this.phSeq.push(Number.isFinite(seq) ? seq : NaN);
      msg = -(row + 1);
    }

    const ev = this.events;
    if (ev === this.evMsg.length) this.growEvents();
    this.evMsg[ev] = msg;
    this.evConsumer[ev] = consumerId;
    this.evLane[ev] = laneId;
    this.evOffset[ev] = offset;
    this.evStart[ev] = start;
    this.evEnd[ev] = end;
    this.evOutcome[ev] = out;
    this.events = ev + 1;
    this.counted++;
    return null;
  }

  private ingestFault(f: Fields): string | null {
    const { kind, num, str } = f;
    if (kind[F_NAME] !== K_STRING || str[F_NAME] === '') return '"name" must be a non-empty string';
    const phase = kind[F_PHASE] === K_STRING ? str[F_PHASE] : null;
    if (phase !== 'start' && phase !== 'end') return '"phase" must be "start" or "end"';
    if (kind[F_AT] !== K_NUMBER || !Number.isFinite(num[F_AT])) return '"at" must be a finite number';
    const kKind = kind[F_KIND];
    if (kKind !== K_STRING && kKind !== K_NULL && kKind !== K_ABSENT) return '"kind" must be a string';
    this.faults.push({
      name: copy(str[F_NAME]),
      kind: kKind === K_STRING ? copy(str[F_KIND]) : null,
      phase,
      at: num[F_AT],
    });
    this.counted++;
    return null;
  }

  private messageId(f: Fields, seq: number): number {
    const stream = this.streams.intern(f.intern(F_PRODUCER, this.producers), f.intern(F_KEY, this.keys));
    const before = this.messages.capacity;
    const m = this.messages.intern(stream, seq);
    if (this.messages.capacity !== before) this.growMessages(this.messages.capacity);
    return m;
  }

  private growMessages(cap: number): void {
    this.sendCount = resized(this.sendCount, cap);
    this.ackCount = resized(this.ackCount, cap);
    this.ackFlags = resized(this.ackFlags, cap);
    this.firstSend = resized(this.firstSend, cap, NaN);
    this.firstAck = resized(this.firstAck, cap, NaN);
  }

  private growEvents(): void {
    const cap = nextCapacity(this.evMsg.length, this.evMsg.length + 1);
    this.evMsg = resized(this.evMsg, cap);
    this.evConsumer = resized(this.evConsumer, cap);
    this.evLane = resized(this.evLane, cap);
    this.evOffset = resized(this.evOffset, cap);
    this.evStart = resized(this.evStart, cap);
    this.evEnd = resized(this.evEnd, cap);
    this.evOutcome = resized(this.evOutcome, cap);
  }

  // Accessors that hide the phantom encoding.
  keyOf(ev: number): number {
    const m = this.evMsg[ev];
    return m >= 0 ? this.streams.b[this.messages.a[m]] : this.phKey.data[-m - 1];
  }
  producerOf(ev: number): number {
    const m = this.evMsg[ev];
    return m >= 0 ? this.streams.a[this.messages.a[m]] : this.phProducer.data[-m - 1];
  }
  /** The event's seq, NaN when null. */
  seqOf(ev: number): number {
    const m = this.evMsg[ev];
    return m >= 0 ? this.messages.b[m] : this.phSeq.data[-m - 1];
  }
}

/** A copy that does not pin the chunk a parsed string was cut from. */
function copy(s: string): string {
  return (' ' + s).slice(1);
}
