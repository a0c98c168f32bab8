/**
 * Columnar storage of a history: what the final pass needs and nothing more, in typed arrays
 * with interned strings. Validates each event as it is stored (the history format:
 * results/schema/history.v2.json) and returns the reason when an event is unusable.
 */
import { Interner } from './interner.ts';
import {
  SRC_STRING, F_AT, F_CONSUMER, F_END, F_KEY, F_KIND, F_LANE, F_NAME, F_OFFSET, F_OK, F_OUTCOME, F_PHASE, F_PRODUCER, F_SEQ, F_START, F_TYPE,
  K_ABSENT, K_FALSE, K_NULL, K_NUMBER, K_STRING, K_TRUE,
  type Fields,
} from './lineParser.ts';
import { F64List, I32List } from './columns.ts';
import { MessageTable, StreamTable, buildMessages } from './messageTable.ts';
import { KeyBatch } from './keyBatch.ts';
import { EventLog } from './eventLog.ts';
import { ACK_LANE_SHIFT, RefLog, TAG_ACK, TAG_PROCESS, TAG_SEND } from './refLog.ts';
import type { BrokerRemaining } from './types.ts';
import { ClockOffsets, toRunnerClock } from '../history/clock-offsets.ts';

export const MAX_SEQ = 2147483647;

/** Process outcome codes. */
export const OUT_NONE = 0;
export const OUT_OK = 1;
export const OUT_ERROR = 2;

/** Message ack flags. */
export const ACK_ANY_TRUE = 1;
export const ACK_ANY_UNKNOWN = 2; // an ack with ok null or missing

/**
 * ingest() returns this for an event it needs whole (a `remaining` event, one per history, or
 * a `clock` event, a few per agent; nested members the field parsers do not read): the caller
 * hands the parsed object to ingestWhole() instead. Kept off the per-event path: only unknown
 * types reach the test.
 */
export const WHOLE_EVENT = '\u0000whole event';

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
  /** The lane (id in `lanes`) + 1 every ack of the message named; -1 mixed or none; 0 no ack (see BuiltMessages). */
  ackLane: Int32Array = new Int32Array(0);
  firstSend: Float64Array = new Float64Array(0);
  firstAck: Float64Array = new Float64Array(0);
  /** The process events of message m are ids evByMsgStart[m] .. evByMsgStart[m + 1]. Built by seal(). */
  evByMsgStart: Int32Array = new Int32Array(1);
  /** Per process event in arrival order, its id after seal(). */
  evId: Int32Array = new Int32Array(0);

  // Process events, indexed by event id, set by seal(): ids run in message order (see
  // messageTable.ts), so that the final pass reads each column front to back instead of
  // gathering a key's events one cache miss at a time. Until then they are in `eventLog`.
  /** Process events stored (identified or phantom). */
  events = 0;
  /**
   * Message id (set by seal()), or -(phantom row + 1) when key, producer or seq could not
   * identify one.
   */
  evMsg: Int32Array = new Int32Array(0);
  evConsumer: Int32Array = new Int32Array(0);
  evLane: Int32Array = new Int32Array(0);
  evOffset: Float64Array = new Float64Array(0);
  evStart: Float64Array = new Float64Array(0);
  evEnd: Float64Array = new Float64Array(0);
  evOutcome: Uint8Array = new Uint8Array(0);
  /** The process events until seal() lays them out in the columns above. */
  private readonly eventLog = new EventLog();

  // Process events that name no message (null key/producer/seq, or a seq no send can have).
  readonly phKey = new I32List(64);
  readonly phProducer = new I32List(64);
  readonly phSeq = new F64List(64);

  readonly faults: FaultMark[] = [];
  /** The history's latest `remaining` event (see BrokerRemaining), or null. */
  remaining: BrokerRemaining | null = null;
  /** Events of the types read here (send, ack, process, fault, remaining, clock), and of other types. */
  counted = 0;
  ignored = 0;

  /** The history's clock events: other hosts' clocks against the runner's. */
  readonly clocks = new ClockOffsets();
  /**
   * Set by seal() when the history has clock events (and `correctClocks`): per event, the host
   * that stamped it (0: the runner's; i + 1: clocks.hosts()[i]), its times mapped to the
   * runner's clock; per host, how far its times can be off (µs; the runner's 0).
   */
  evHost: Uint8Array = new Uint8Array(0);
  hostUncertainty: Float64Array = new Float64Array(1);
  /** false: every time is taken as stamped, on one clock (`convoy check --no-clock-correction`). */
  correctClocks = true;

  /** Stores one event; returns null, or why the event is unusable. */
  ingest(f: Fields): string | null {
    const kind = f.kind;
    if (kind[F_TYPE] !== K_STRING) return kind[F_TYPE] === K_ABSENT ? 'missing "type"' : '"type" must be a string';
    const type = f.str[F_TYPE];
    if (type === 'process') return this.ingestProcess(f);
    if (type === 'send') return this.ingestSendOrAck(f, true);
    if (type === 'ack') return this.ingestSendOrAck(f, false);
    if (type === 'fault') return this.ingestFault(f);
    if (type === 'remaining' || type === 'clock') return WHOLE_EVENT;
    this.ignored++;
    return null;
  }

  /** Stores an event given whole (see WHOLE_EVENT); returns null or why it is unusable. */
  ingestWhole(o: Record<string, unknown>): string | null {
    return o.type === 'clock' ? this.ingestClock(o) : this.ingestRemaining(o);
  }

  private ingestClock(o: Record<string, unknown>): string | null {
    const { host, at, offset, uncertainty, workers } = o;
    if (typeof host !== 'string' || host === '') return '"host" must be a non-empty string';
    if (typeof at !== 'number' || !Number.isFinite(at)) return '"at" must be a finite number';
    if (typeof offset !== 'number' || !Number.isFinite(offset)) return '"offset" must be a finite number';
    if (typeof uncertainty !== 'number' || !(uncertainty >= 0) || uncertainty === Infinity) return '"uncertainty" must be a non-negative number';
    if (!Array.isArray(workers) || workers.some((w) => typeof w !== 'string')) return '"workers" must be an array of strings';
    this.assertOpen();
    this.clocks.add({ host, at, offset, uncertainty, workers: workers as string[] });
    this.counted++;
    return null;
  }

  /** Stores a `remaining` event given whole; returns null or why it is unusable. */
  private ingestRemaining(o: Record<string, unknown>): string | null {
    const { at, known, total, lanes } = o;
    if (typeof at !== 'number' || !Number.isFinite(at)) return '"at" must be a finite number';
    if (typeof known !== 'boolean') return '"known" must be true or false';
    if (total !== null && total !== undefined && !isCount(total)) return '"total" must be a non-negative integer or null';
    if (known && !isCount(total)) return '"total" must be a non-negative integer when "known" is true';
    let laneCounts: Record<string, number> | null = null;
    if (lanes !== null && lanes !== undefined) {
      if (typeof lanes !== 'object' || Array.isArray(lanes)) return '"lanes" must be an object of counts';
      laneCounts = {};
      for (const [lane, n] of Object.entries(lanes)) {
        if (!isCount(n)) return `"lanes.${lane}" must be a non-negative integer`;
        laneCounts[lane] = n;
      }
    }
    this.assertOpen();
    const next: BrokerRemaining = { at, known, total: isCount(total) ? total : null, lanes: laneCounts };
    // Several: the latest wins; at the same instant the one that holds more; a full tie keeps
    // the lanes both report, with the larger count. So the result does not depend on line
    // order, and a tie never turns unseen into lost.
    const cur = this.remaining;
    if (!cur || at > cur.at || (at === cur.at && heldRank(next) > heldRank(cur))) this.remaining = next;
    else if (at === cur.at && heldRank(next) === heldRank(cur)) cur.lanes = commonLanes(cur.lanes, next.lanes);
    this.counted++;
    return null;
  }

  /**
   * The in-process fast path: stores a well-formed send, ack or process event straight from
   * its object, without copying it into Fields first. Returns false, having stored nothing,
   * for any other event or any member outside the plain case (a phantom, a numeric lane, an
   * offset given as a string, a bad value): the caller then takes it through ingest(), which
   * decides and words the error exactly as for a line.
   */
  ingestObject(o: Record<string, unknown>): boolean {
    const type = o.type;
    if (type === 'process') return this.processObject(o);
    if (type === 'send') return this.refObject(o, TAG_SEND);
    if (type !== 'ack') return false;
    const ok = o.ok;
    let tag = TAG_ACK;
    if (ok === true) tag |= ACK_ANY_TRUE;
    else if (ok === null || ok === undefined) tag |= ACK_ANY_UNKNOWN;
    else if (ok !== false) return false;
    // The lane the broker put it on (a number: the Fields path interns its text).
    const lane = o.lane;
    if (typeof lane === 'string') return this.refObject(o, tag, lane);
    if (lane !== null && lane !== undefined) return false;
    return this.refObject(o, tag);
  }

  /** A send or ack; `lane`: the ack's lane, interned into the tag once the event is known good. */
  private refObject(o: Record<string, unknown>, tag: number, lane: string | null = null): boolean {
    const key = o.key;
    const producer = o.producer;
    const seq = o.seq;
    const at = o.at;
    if (typeof key !== 'string' || typeof producer !== 'string' || !isSeq(seq) || typeof at !== 'number' || !Number.isFinite(at) || this.sealed) return false;
    if (lane !== null) tag |= (this.lanes.id(lane) + 1) << ACK_LANE_SHIFT;
    this.pushRef(this.producers.id(producer), key, seq, at, tag);
    this.counted++;
    return true;
  }

  private processObject(o: Record<string, unknown>): boolean {
    const key = o.key;
    const producer = o.producer;
    const seq = o.seq;
    const start = o.start;
    const end = o.end;
    const consumer = o.consumer;
    const lane = o.lane;
    const offset = o.offset;
    const outcome = o.outcome;
    if (typeof key !== 'string' || typeof producer !== 'string' || !isSeq(seq) || typeof start !== 'number' || !Number.isFinite(start) || this.sealed) return false;
    let e = NaN;
    if (typeof end === 'number') {
      if (!(end >= start) || end === Infinity) return false;
      e = end;
    } else if (end !== null && end !== undefined) return false;
    const out = outcome === 'ok' ? OUT_OK : outcome === 'error' ? OUT_ERROR : outcome === null || outcome === undefined ? OUT_NONE : -1;
    if (out < 0) return false;
    let consumerId = -1;
    if (typeof consumer === 'string') consumerId = this.consumers.id(consumer);
    else if (consumer !== null && consumer !== undefined) return false;
    let laneId = -1;
    if (typeof lane === 'string') laneId = this.lanes.id(lane);
    else if (lane !== null && lane !== undefined) return false;
    let off = NaN;
    if (typeof offset === 'number') {
      if (!Number.isFinite(offset)) return false;
      off = offset;
    } else if (offset !== null && offset !== undefined) return false;

    const ev = this.events;
    this.pushRef(this.producers.id(producer), key, seq, ev, TAG_PROCESS);
    this.eventLog.push(0, consumerId, laneId, off, start, e, out);
    this.events = ev + 1;
    this.counted++;
    return true;
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
      // The lane the broker put it on, as a process event's lane is read; any other value is
      // no lane (acks were accepted with any lane before lanes were read).
      const kLane = kind[F_LANE];
      if (kLane === K_STRING) flag |= (f.intern(F_LANE, this.lanes) + 1) << ACK_LANE_SHIFT;
      else if (kLane === K_NUMBER && Number.isFinite(num[F_LANE])) flag |= (this.lanes.id(String(num[F_LANE])) + 1) << ACK_LANE_SHIFT;
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

    this.eventLog.push(msg, consumerId, laneId, offset, start, end, out);
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
    if (f.src[F_KEY] === SRC_STRING) this.pushRef(producer, f.str[F_KEY], seq, at, tag);
    else this.refs.push(producer, f.intern(F_KEY, this.keys), seq, at, tag);
  }

  /** Logs a reference whose key is a string: interned now while the table is small, else in a batch. */
  private pushRef(producer: number, key: string, seq: number, at: number, tag: number): void {
    if (this.keys.isSmall) this.refs.push(producer, this.keys.id(key), seq, at, tag);
    else {
      this.refs.push(producer, -1, seq, at, tag);
      this.keyBatch.add(key, this.refs.keyChunk, this.refs.lastPosition);
    }
  }

  /** Builds the stream and message tables; no events may be stored afterwards. */
  seal(): void {
    if (this.sealed) return;
    this.sealed = true;
    this.keyBatch.flush();
    const t = buildMessages(this.refs, this.keys.size, this.events);
    this.streams = t.streams;
    this.messages = t.messages;
    this.sendCount = t.sendCount;
    this.ackCount = t.ackCount;
    this.ackFlags = t.ackFlags;
    this.ackLane = t.ackLane;
    this.firstSend = t.firstSend;
    this.firstAck = t.firstAck;
    this.evByMsgStart = t.evByMsgStart;
    // Phantoms take the ids after the messages' events, in arrival order.
    const { evMsg, evId } = t;
    let e = t.numbered;
    this.eventLog.forEachPhantom((ev, code) => {
      evId[ev] = e;
      evMsg[e++] = code;
    });
    this.evId = evId;
    this.evMsg = evMsg;
    const c = this.eventLog.scatter(evId);
    this.evConsumer = c.consumer;
    this.evLane = c.lane;
    this.evOffset = c.offset;
    this.evStart = c.start;
    this.evEnd = c.end;
    this.evOutcome = c.outcome;
    this.mapClocks();
  }

  /** Every time a worker on another host stamped, on the runner's clock (see evHost). */
  private mapClocks(): void {
    this.evHost = new Uint8Array(this.events);
    if (this.clocks.size === 0 || !this.correctClocks) return;
    const hosts = this.clocks.hosts();
    if (hosts.length > 254) throw new Error('checker: more than 254 hosts');
    this.hostUncertainty = Float64Array.from([0, ...hosts.map((h) => h.uncertainty)]);
    const hostOf = new Uint8Array(this.consumers.size);
    for (const [worker, i] of this.clocks.workerHosts()) {
      const c = this.consumers.find(worker);
      if (c >= 0) hostOf[c] = i + 1;
    }
    const { evConsumer, evStart, evEnd, evHost } = this;
    for (let ev = 0; ev < this.events; ev++) {
      const c = evConsumer[ev];
      const h = c >= 0 ? hostOf[c] : 0;
      if (h === 0) continue;
      const clock = hosts[h - 1]!;
      evHost[ev] = h;
      evStart[ev] = toRunnerClock(clock, evStart[ev]);
      if (evEnd[ev] === evEnd[ev]) evEnd[ev] = Math.max(evStart[ev], toRunnerClock(clock, evEnd[ev]));
    }
  }

  private assertOpen(): void {
    if (this.sealed) throw new Error('checker: events stored after the message table was built');
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

function isCount(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 0;
}

/**
 * The lanes both reports name, each with the larger count, in sorted order (null when either
 * has none): the same whichever came first.
 */
function commonLanes(a: Record<string, number> | null, b: Record<string, number> | null): Record<string, number> | null {
  if (a === null || b === null) return null;
  const out: Record<string, number> = {};
  for (const lane of Object.keys(a).sort()) if (Object.hasOwn(b, lane)) out[lane] = Math.max(a[lane], b[lane]);
  return out;
}

/** Unknown ranks above any count. */
function heldRank(r: BrokerRemaining): number {
  return !r.known || r.total === null ? Infinity : r.total;
}

/** An integer seq from 1 to MAX_SEQ. */
function isSeq(seq: unknown): seq is number {
  return typeof seq === 'number' && Number.isInteger(seq) && seq >= 1 && seq <= MAX_SEQ;
}

/** A copy that does not pin the chunk a parsed string was cut from. */
function copy(s: string): string {
  return (' ' + s).slice(1);
}
