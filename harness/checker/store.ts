/**
 * Columnar storage of a history: what the final pass needs and nothing more, in typed arrays
 * with interned strings. Validates each event as it is stored (the history format is in
 * issue 3) and returns the reason when an event is unusable.
 */
import { Interner } from './interner.ts';
import {
  SRC_STRING, F_AT, F_CONSUMER, F_END, F_KEY, F_KIND, F_LANE, F_NAME, F_OFFSET, F_OK, F_OUTCOME, F_PHASE, F_PRODUCER, F_SEQ, F_START, F_TYPE,
  K_ABSENT, K_FALSE, K_NULL, K_NUMBER, K_STRING, K_TRUE,
  type Fields,
} from './lineParser.ts';
import { F64List, I32List, nextCapacity, resized } from './columns.ts';
import { MessageTable, StreamTable, buildMessages } from './messageTable.ts';
import { KeyBatch } from './keyBatch.ts';
import { RefLog, TAG_ACK, TAG_PROCESS, TAG_SEND } from './refLog.ts';

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

  /**
   * Sends, acks and identified process events, in arrival order, until seal() builds the
   * tables below from them in bulk (see refLog.ts).
   */
  private readonly refs = new RefLog(() => this.keyBatch.flush());
  /** Keys of `refs` given as strings, interned in batches (the log holds -1 until then). */
  private readonly keyBatch = new KeyBatch(this.keys);
  private sealed = false;
  /** Streams (producer, key) -> `streams.a` = producer, `streams.b` = key. Built by seal(). */
  streams = new StreamTable();
  /** Messages (stream, seq) -> `messages.a` = stream, `messages.b` = seq. Built by seal(). */
  messages = new MessageTable();
  // Per message, indexed by message id. Built by seal().
  sendCount: Int32Array = new Int32Array(0);
  ackCount: Int32Array = new Int32Array(0);
  ackFlags: Uint8Array = new Uint8Array(0);
  firstSend: Float64Array = new Float64Array(0);
  firstAck: Float64Array = new Float64Array(0);
  /** Process events by message (see BuiltMessages). Built by seal(). */
  evByMsgStart: Int32Array = new Int32Array(1);
  evByMsg: Int32Array = new Int32Array(0);

  // Process events, indexed by event id.
  events = 0;
  /**
   * Message id (set by seal()), or -(phantom row + 1) when key, producer or seq could not
   * identify one.
   */
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
    this.assertOpen();
    this.logRef(f, seq, at, isSend ? TAG_SEND : TAG_ACK | flag);
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

    this.assertOpen();
    const ev = this.events;
    let msg = 0; // set by seal()
    const seq = kSeq === K_NUMBER ? num[F_SEQ] : NaN;
    if (kKey === K_STRING && kProducer === K_STRING && Number.isInteger(seq) && seq >= 1 && seq <= MAX_SEQ) {
      this.logRef(f, seq, ev, TAG_PROCESS);
    } else {
      // No send can have this identity: a phantom whatever else the history holds.
      const row = this.phKey.length;
      this.phKey.push(kKey === K_STRING ? f.intern(F_KEY, this.keys) : -1);
      this.phProducer.push(kProducer === K_STRING ? f.intern(F_PRODUCER, this.producers) : -1);
      this.phSeq.push(Number.isFinite(seq) ? seq : NaN);
      msg = -(row + 1);
    }

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

  private logRef(f: Fields, seq: number, at: number, tag: number): void {
    const producer = f.intern(F_PRODUCER, this.producers);
    if (f.src[F_KEY] === SRC_STRING) {
      this.refs.push(producer, -1, seq, at, tag);
      this.keyBatch.add(f.str[F_KEY], this.refs.keyChunk, this.refs.lastPosition);
    } else this.refs.push(producer, f.intern(F_KEY, this.keys), seq, at, tag);
  }

  /** Builds the stream and message tables; no events may be stored afterwards. */
  seal(): void {
    if (this.sealed) return;
    this.sealed = true;
    this.keyBatch.flush();
    const t = buildMessages(this.refs, this.keys.size, this.evMsg);
    this.streams = t.streams;
    this.messages = t.messages;
    this.sendCount = t.sendCount;
    this.ackCount = t.ackCount;
    this.ackFlags = t.ackFlags;
    this.firstSend = t.firstSend;
    this.firstAck = t.firstAck;
    this.evByMsgStart = t.evByMsgStart;
    this.evByMsg = t.evByMsg;
  }

  private assertOpen(): void {
    if (this.sealed) throw new Error('checker: events stored after the message table was built');
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
