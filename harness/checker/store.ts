/**
 * Columnar storage of a history: what the final pass needs and nothing more, in typed arrays
 * with interned strings. Validates each event as it is stored (the history format is in
 * issue 3) and returns the reason when an event is unusable.
 */
import { Interner } from './interner.ts';
import { F64List, I32List, PairIndex, nextCapacity, resized } from './columns.ts';

export const MAX_SEQ = 2147483647;

/** Process outcome codes. */
export const OUT_NONE = 0;
export const OUT_OK = 1;
export const OUT_ERROR = 2;

/** Message ack flags. */
export const ACK_ANY_TRUE = 1;
export const ACK_ANY_UNKNOWN = 2; // an ack with ok null or missing

/** The fields of one event, as an object or as the line parser's record. */
export interface RawEvent {
  type?: unknown;
  key?: unknown;
  producer?: unknown;
  seq?: unknown;
  at?: unknown;
  ok?: unknown;
  consumer?: unknown;
  lane?: unknown;
  offset?: unknown;
  start?: unknown;
  end?: unknown;
  outcome?: unknown;
  name?: unknown;
  kind?: unknown;
  phase?: unknown;
}

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
  readonly streams = new PairIndex(1 << 12);
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
  ingest(e: RawEvent): string | null {
    const type = e.type;
    if (type === 'process') return this.ingestProcess(e);
    if (type === 'send' || type === 'ack') return this.ingestSendOrAck(e, type === 'send');
    if (type === 'fault') return this.ingestFault(e);
    if (typeof type !== 'string') return type === undefined ? 'missing "type"' : '"type" must be a string';
    this.ignored++;
    return null;
  }

  private ingestSendOrAck(e: RawEvent, isSend: boolean): string | null {
    const key = e.key;
    const producer = e.producer;
    const seq = e.seq;
    const at = e.at;
    if (typeof key !== 'string') return '"key" must be a string';
    if (typeof producer !== 'string') return '"producer" must be a string';
    if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 1 || seq > MAX_SEQ)
      return `"seq" must be an integer from 1 to ${MAX_SEQ}`;
    if (typeof at !== 'number' || !Number.isFinite(at)) return '"at" must be a finite number';
    let flag = 0;
    if (!isSend) {
      const ok = e.ok;
      if (ok === true) flag = ACK_ANY_TRUE;
      else if (ok === null || ok === undefined) flag = ACK_ANY_UNKNOWN;
      else if (ok !== false) return '"ok" must be true, false or null';
    }
    const m = this.messageId(key, producer, seq);
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

  private ingestProcess(e: RawEvent): string | null {
    const key = e.key;
    const producer = e.producer;
    const seq = e.seq;
    const consumer = e.consumer;
    const lane = e.lane;
    const offset = e.offset;
    const start = e.start;
    const end = e.end;
    const outcome = e.outcome;
    if (key !== null && key !== undefined && typeof key !== 'string') return '"key" must be a string or null';
    if (producer !== null && producer !== undefined && typeof producer !== 'string')
      return '"producer" must be a string or null';
    if (seq !== null && seq !== undefined && typeof seq !== 'number') return '"seq" must be a number or null';
    if (typeof start !== 'number' || !Number.isFinite(start)) return '"start" must be a finite number';
    let endValue = NaN;
    if (end !== null && end !== undefined) {
      if (typeof end !== 'number' || !Number.isFinite(end)) return '"end" must be a finite number or null';
      if (end < start) return '"end" is before "start"';
      endValue = end;
    }
    let out = OUT_NONE;
    if (outcome === 'ok') out = OUT_OK;
    else if (outcome === 'error') out = OUT_ERROR;
    else if (outcome !== null && outcome !== undefined) return '"outcome" must be "ok", "error" or null';
    let consumerId = -1;
    if (typeof consumer === 'string') consumerId = this.consumers.id(consumer);
    else if (consumer !== null && consumer !== undefined) return '"consumer" must be a string';
    let laneId = -1;
    if (typeof lane === 'string') laneId = this.lanes.id(lane);
    else if (typeof lane === 'number' && Number.isFinite(lane)) laneId = this.lanes.id(String(lane));
    else if (lane !== null && lane !== undefined) return '"lane" must be a string or a number';
    let offsetValue = NaN;
    if (typeof offset === 'number' && Number.isFinite(offset)) offsetValue = offset;
    else if (typeof offset === 'string' && /^-?\d+(\.\d+)?$/.test(offset)) offsetValue = Number(offset);
    else if (offset !== null && offset !== undefined) return '"offset" must be a number';

    let msg: number;
    if (
      typeof key === 'string' &&
      typeof producer === 'string' &&
      typeof seq === 'number' &&
      Number.isInteger(seq) &&
      seq >= 1 &&
      seq <= MAX_SEQ
    ) {
      msg = this.messageId(key, producer, seq);
    } else {
      // No send can have this identity: a phantom whatever else the history holds.
      const row = this.phKey.length;
      this.phKey.push(typeof key === 'string' ? this.keys.id(key) : -1);
      this.phProducer.push(typeof producer === 'string' ? this.producers.id(producer) : -1);
      this.phSeq.push(typeof seq === 'number' && Number.isFinite(seq) ? seq : NaN);
      msg = -(row + 1);
    }

    const ev = this.events;
    if (ev === this.evMsg.length) this.growEvents();
    this.evMsg[ev] = msg;
    this.evConsumer[ev] = consumerId;
    this.evLane[ev] = laneId;
    this.evOffset[ev] = offsetValue;
    this.evStart[ev] = start;
    this.evEnd[ev] = endValue;
    this.evOutcome[ev] = out;
    this.events = ev + 1;
    this.counted++;
    return null;
  }

  private ingestFault(e: RawEvent): string | null {
    const { name, kind, phase, at } = e;
    if (typeof name !== 'string' || name === '') return '"name" must be a non-empty string';
    if (phase !== 'start' && phase !== 'end') return '"phase" must be "start" or "end"';
    if (typeof at !== 'number' || !Number.isFinite(at)) return '"at" must be a finite number';
    if (kind !== null && kind !== undefined && typeof kind !== 'string') return '"kind" must be a string';
    this.faults.push({ name: (' ' + name).slice(1), kind: typeof kind === 'string' ? (' ' + kind).slice(1) : null, phase, at });
    this.counted++;
    return null;
  }

  private messageId(key: string, producer: string, seq: number): number {
    const stream = this.streams.intern(this.producers.id(producer), this.keys.id(key));
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
