/**
 * The streaming ordering checker: feed it events (objects, lines or raw chunks) in any order
 * and any chunking, then call finish() once for the anomalies. Same input, same result.
 */
import { StringDecoder } from 'node:string_decoder';
import { InputError } from '../errors.ts';
import { FinalPass } from './analysis.ts';
import { renderAnomalies } from './examples.ts';
import { DEFAULT_SETTLE_MS, faultWindows } from './faults.ts';
import { parseBytes } from './byteParser.ts';
import { Fields, parseFast } from './lineParser.ts';
import { Occurrences } from './occurrences.ts';
import { HistoryStore, WHOLE_EVENT } from './history-columns.ts';
import type { ClockOffsets } from '../history/clock-offsets.ts';
import type { Anomalies, BadLine, BrokerRemaining, FaultWindow, InputStats, WindowInput } from './types.ts';

export interface CheckerOptions {
  /** Skip unusable lines/events and count them instead of throwing. */
  lenient?: boolean;
  /** Time a fault's window extends past its end, in milliseconds (default 5000). */
  settleMs?: number;
  /** Examples kept per anomaly type (default 5). */
  maxExamples?: number;
  /**
   * false: read every time as stamped, as if all hosts shared one clock, ignoring the history's
   * clock events (to see what the correction changes). Default true.
   */
  correctClocks?: boolean;
}

export interface FinishOptions {
  /** Extra fault windows, on top of the history's fault events. */
  windows?: WindowInput[];
  /** Overrides the checker's settle time for this call. */
  settleMs?: number;
}

export interface CheckOutcome {
  anomalies: Anomalies;
  /** Each anomaly occurrence with its time, for scoping expectations to fault windows. */
  occurrences: Occurrences;
  /** Fault instances found in the history (plus any given), sorted by start. */
  faults: FaultWindow[];
  settleMs: number;
  input: InputStats;
  /** What the broker still held when the run ended (the history's `remaining` event), or null. */
  remaining: BrokerRemaining | null;
  /**
   * Anomalies that hang on the order of two times stamped on different hosts closer together
   * than the hosts' clocks are known (not counted in `anomalies`; each type's `uncertain`).
   */
  uncertain: Occurrences;
  /** The other hosts' clocks, as measured (empty for a history from one host). */
  clocks: HostClockSummary[];
  /** The same, to map other events by (null: one host, or the correction turned off). */
  clockOffsets: ClockOffsets | null;
}

/** One host's clock against the runner's, for the result. */
export interface HostClockSummary {
  host: string;
  workers: string[];
  measurements: number;
  /** The first and last measured offsets (the host's clock minus the runner's, µs). */
  offsetUs: { first: number; last: number };
  /** The largest uncertainty of a measurement (µs). */
  uncertaintyUs: number;
  driftPpm: number | null;
  /** false: the check was asked to ignore it. */
  corrected: boolean;
}

/** A history line (or, for add(), the n-th event) the checker cannot use. */
export class HistoryLineError extends InputError {
  constructor(
    readonly line: number,
    readonly reason: string,
    what: 'line' | 'event' = 'line',
  ) {
    super(`${what} ${line}: ${reason}`);
    this.name = 'HistoryLineError';
  }
}

const MAX_BAD_LINE_SAMPLES = 100;

export class Checker {
  private readonly store = new HistoryStore();
  private readonly fields = new Fields();
  private readonly lenient: boolean;
  private readonly settleMs: number;
  private readonly maxExamples: number;
  private lines = 0;
  private added = 0;
  private badLines = 0;
  private readonly badLineSamples: BadLine[] = [];
  private pending = '';
  private decoder: StringDecoder | null = null;
  /** Byte mode (see write): the bytes of an unfinished line, in pieces. */
  private tail: Buffer[] = [];
  private judged: { anomalies: Anomalies; occurrences: Occurrences; uncertain: Occurrences } | null = null;

  constructor(options: CheckerOptions = {}) {
    this.lenient = options.lenient ?? false;
    this.settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
    this.maxExamples = options.maxExamples ?? 5;
    this.store.correctClocks = options.correctClocks ?? true;
    if (!(this.settleMs >= 0)) throw new InputError(`settle time must be a non-negative number of ms, got ${options.settleMs}`);
  }

  /** Adds one event object (in-process use). */
  add(event: unknown): void {
    this.assertOpen();
    const n = ++this.added;
    if (typeof event !== 'object' || event === null || Array.isArray(event)) return this.bad(n, 'not a JSON object', 'event');
    if (this.store.ingestObject(event as Record<string, unknown>)) return;
    this.addOther(n, event as Record<string, unknown>);
  }

  /** add() for anything outside the store's fast path (kept out of add() so that it stays small). */
  private addOther(n: number, event: Record<string, unknown>): void {
    this.fields.fromObject(event);
    let reason = this.store.ingest(this.fields);
    if (reason === WHOLE_EVENT) reason = this.store.ingestWhole(event);
    if (reason !== null) this.bad(n, reason, 'event');
  }

  /** Adds one JSONL line. `lineNo` (1-based) is only used in error reports. */
  addLine(line: string, lineNo?: number): void {
    this.assertOpen();
    this.lines++;
    this.consume(line, 0, line.length, lineNo ?? this.lines);
  }

  /** Adds raw JSONL text or bytes; lines may span chunks. Call end() after the last chunk. */
  write(chunk: string | Uint8Array): void {
    this.assertOpen();
    let text: string;
    if (typeof chunk === 'string') {
      if (this.tail.length > 0) this.leaveByteMode();
      text = chunk;
    } else if (this.pending.length === 0 && this.decoder === null) {
      return this.writeBytes(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    } else text = (this.decoder ??= new StringDecoder('utf8')).write(chunk as Buffer);
    if (this.pending.length > 0) {
      text = this.pending + text;
      this.pending = '';
    }
    let from = 0;
    for (;;) {
      const nl = text.indexOf('\n', from);
      if (nl < 0) break;
      this.lines++;
      this.consume(text, from, nl, this.lines);
      from = nl + 1;
    }
    if (from < text.length) this.pending = text.slice(from);
  }

  /**
   * Byte mode: lines are split and parsed as bytes, and only a line outside the fast subset
   * is decoded (to the text the string path would have seen: the decoder restarts cleanly
   * after each newline byte). Used while no text is pending; the chunk may be reused by the
   * caller afterwards (an unfinished line is copied).
   */
  private writeBytes(chunk: Buffer): void {
    let from = 0;
    if (this.tail.length > 0) {
      const nl = chunk.indexOf(10);
      if (nl < 0) {
        this.tail.push(Buffer.from(chunk));
        return;
      }
      this.tail.push(chunk.subarray(0, nl));
      const line = Buffer.concat(this.tail);
      this.tail = [];
      this.lines++;
      this.consumeBytes(line, 0, line.length, this.lines);
      from = nl + 1;
    }
    for (;;) {
      const nl = chunk.indexOf(10, from);
      if (nl < 0) break;
      this.lines++;
      this.consumeBytes(chunk, from, nl, this.lines);
      from = nl + 1;
    }
    if (from < chunk.length) this.tail.push(Buffer.from(chunk.subarray(from)));
  }

  /** Text after bytes: hands the unfinished line to the decoder, as if it had decoded all along. */
  private leaveByteMode(): void {
    const rest = Buffer.concat(this.tail);
    this.tail = [];
    this.decoder ??= new StringDecoder('utf8');
    this.pending += this.decoder.write(rest);
  }

  /** Flushes a last line without a newline. */
  end(): void {
    this.assertOpen();
    if (this.tail.length > 0) {
      const line = Buffer.concat(this.tail);
      this.tail = [];
      this.lines++;
      this.consumeBytes(line, 0, line.length, this.lines);
    }
    if (this.decoder) {
      const rest = this.decoder.end();
      this.decoder = null;
      if (rest) this.pending += rest;
    }
    if (this.pending.length > 0) {
      const text = this.pending;
      this.pending = '';
      this.lines++;
      this.consume(text, 0, text.length, this.lines);
    }
  }

  /**
   * Judges everything added so far. May be called again (with other windows or settle time);
   * the anomalies are computed once, and no events may be added after the first call.
   */
  finish(options: FinishOptions = {}): CheckOutcome {
    if (this.pending.length > 0 || this.decoder || this.tail.length > 0) this.end();
    if (!this.judged) {
      this.store.seal();
      const pass = new FinalPass(this.store, this.maxExamples);
      pass.run();
      this.judged = { anomalies: renderAnomalies(pass), occurrences: pass.occurrences, uncertain: pass.uncertainOccurrences };
    }
    const settleMs = options.settleMs ?? this.settleMs;
    const s = this.store;
    return {
      anomalies: this.judged.anomalies,
      occurrences: this.judged.occurrences,
      faults: faultWindows(s.faults, settleMs * 1000, options.windows),
      settleMs,
      remaining: s.remaining,
      uncertain: this.judged.uncertain,
      clockOffsets: s.clocks.size > 0 && s.correctClocks ? s.clocks : null,
      clocks: s.clocks.hosts().map((h) => ({
        host: h.host,
        workers: [...h.workers].sort(),
        measurements: h.offset.length,
        offsetUs: { first: h.offset[0]!, last: h.offset.at(-1)! },
        uncertaintyUs: h.uncertainty,
        driftPpm: h.driftPpm,
        corrected: s.correctClocks,
      })),
      input: {
        lines: this.lines,
        events: s.counted,
        ignored: s.ignored,
        badLines: this.badLines,
        badLineSamples: this.badLineSamples.slice(),
        messages: s.messages.size,
        keys: s.keys.size,
        producers: s.producers.size,
        processEvents: s.events,
      },
    };
  }

  private consumeBytes(buf: Buffer, from: number, to: number, lineNo: number): void {
    if (parseBytes(buf, from, to, this.fields)) {
      const reason = this.store.ingest(this.fields);
      if (reason !== null) this.refused(reason, lineNo, buf, from, to);
    } else {
      const text = buf.toString('utf8', from, to);
      this.consume(text, 0, text.length, lineNo);
    }
  }

  private consume(text: string, from: number, to: number, lineNo: number): void {
    if (lineNo === 1 && text.charCodeAt(from) === 0xfeff) from++; // byte order mark
    let i = from;
    while (i < to) {
      const c = text.charCodeAt(i);
      if (c !== 32 && c !== 9 && c !== 13) break;
      i++;
    }
    if (i === to) return; // blank line
    let reason: string | null;
    if (parseFast(text, from, to, this.fields)) {
      reason = this.store.ingest(this.fields);
      if (reason !== null) return this.refused(reason, lineNo, text, from, to);
    } else {
      let value: unknown;
      try {
        value = JSON.parse(text.slice(from, to));
      } catch (err) {
        return this.bad(lineNo, `invalid JSON: ${(err as Error).message}`);
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) reason = 'not a JSON object';
      else {
        this.fields.fromObject(value as Record<string, unknown>);
        reason = this.store.ingest(this.fields);
        if (reason === WHOLE_EVENT) reason = this.store.ingestWhole(value as Record<string, unknown>);
      }
    }
    if (reason !== null) this.bad(lineNo, reason);
  }

  /**
   * A fast-parsed line the store did not take: unusable, or one it needs as an object (see
   * WHOLE_EVENT; the fast parsers accepted it, so it is JSON). Out of the hot path on purpose.
   */
  private refused(reason: string, lineNo: number, src: string | Buffer, from: number, to: number): void {
    if (reason === WHOLE_EVENT) {
      const text = typeof src === 'string' ? src.slice(from, to) : src.toString('utf8', from, to);
      const r = this.store.ingestWhole(JSON.parse(text) as Record<string, unknown>);
      if (r !== null) this.bad(lineNo, r);
    } else this.bad(lineNo, reason);
  }

  private bad(line: number, reason: string, what: 'line' | 'event' = 'line'): void {
    if (!this.lenient) throw new HistoryLineError(line, reason, what);
    this.badLines++;
    if (this.badLineSamples.length < MAX_BAD_LINE_SAMPLES) this.badLineSamples.push({ line, reason });
  }

  private assertOpen(): void {
    if (this.judged) throw new Error('checker: events added after finish()');
  }
}

/** Checks a complete history given as event objects. */
export function checkEvents(events: Iterable<unknown>, options: CheckerOptions & FinishOptions = {}): CheckOutcome {
  const checker = new Checker(options);
  for (const e of events) checker.add(e);
  return checker.finish(options);
}

/** Checks a complete history given as JSONL text. */
export function checkText(text: string, options: CheckerOptions & FinishOptions = {}): CheckOutcome {
  const checker = new Checker(options);
  checker.write(text);
  checker.end();
  return checker.finish(options);
}
