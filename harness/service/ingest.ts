/**
 * A consumer under test's reports (report.ts) turned into the history's handling events: each
 * start is matched with its end (the oldest open start of the same message in this process),
 * and the pair is one `process` event, as convoy's own consumer writes one per attempt, so the
 * checker reads a service's history unchanged. What cannot be read is counted, never dropped in
 * silence: malformed lines, reports of another run's messages, ends without a start. Each makes
 * the run incomplete (its verdict unknown), named in `problems()`.
 */
import type { ProcessEvent } from '../history/events.ts';
import { HEADER } from './report.ts';

export interface IngestOptions {
  /** The run's id: a report whose convoy-run header differs is another run's message. */
  runId: string;
  /** The process's name in the history (c1, c2, ...). */
  consumer: string;
  /** The run's name for a reported lane (a Kafka partition number → its lane). */
  lane(reported: string): string;
  /** The run clock, for a report without `at`. */
  now(): number;
  write(event: ProcessEvent): void;
}

/** Examples of a kind of problem kept for the message. */
const SAMPLES = 3;

interface Tally {
  count: number;
  samples: string[];
}

const tally = (): Tally => ({ count: 0, samples: [] });
function note(t: Tally, sample: string): void {
  t.count++;
  if (t.samples.length < SAMPLES) t.samples.push(sample.length > 200 ? `${sample.slice(0, 200)}…` : sample);
}

/** What the reports of one process came to (sent to the runner with its stats). */
export interface ReportCounts {
  /** Starts reported (handling attempts). */
  started: number;
  ready: boolean;
  malformed: Tally;
  /** Reports of messages whose convoy-run header names another run. */
  foreign: Tally;
  /** Ends without an open start of the same message. */
  unmatched: Tally;
}

export class ReportIngest {
  readonly counts: ReportCounts = { started: 0, ready: false, malformed: tally(), foreign: tally(), unmatched: tally() };
  applied = 0;
  errors = 0;
  /** Open starts, by message, oldest first. */
  private readonly open = new Map<string, ProcessEvent[]>();
  private openCount = 0;

  constructor(private readonly o: IngestOptions) {}

  get inFlight(): number {
    return this.openCount;
  }

  /** One line of the report stream (without its newline); empty lines are skipped. */
  line(text: string): 'ready' | undefined {
    if (text.trim() === '') return undefined;
    let r: unknown;
    try {
      r = JSON.parse(text);
    } catch {
      note(this.counts.malformed, `not JSON: ${text}`);
      return undefined;
    }
    if (typeof r !== 'object' || r === null || Array.isArray(r)) return void note(this.counts.malformed, `not an object: ${text}`);
    const o = r as Record<string, unknown>;
    const at = o.at === undefined ? this.o.now() : o.at;
    if (typeof at !== 'number' || !Number.isInteger(at) || at < 0) return void note(this.counts.malformed, `"at" must be an integer of µs since the epoch: ${text}`);
    switch (o.type) {
      case 'hello':
        return undefined;
      case 'ready':
        this.counts.ready = true;
        return 'ready';
      case 'start':
      case 'end': {
        const m = this.message(o, text);
        if (!m) return undefined;
        if (o.type === 'start') this.start(m, at, o, text);
        else this.end(m, at, o, text);
        return undefined;
      }
      default:
        note(this.counts.malformed, `unknown type ${JSON.stringify(o.type)}: ${text}`);
        return undefined;
    }
  }

  /** The message a start or end names, from its headers; undefined (counted) when it names none of this run's. */
  private message(o: Record<string, unknown>, text: string): { id: string; key: string; producer: string; seq: number } | undefined {
    const h = o.headers;
    if (typeof h !== 'object' || h === null || Array.isArray(h)) return void note(this.counts.malformed, `no "headers" object: ${text}`);
    const headers = h as Record<string, unknown>;
    for (const name of Object.values(HEADER)) {
      if (typeof headers[name] !== 'string') return void note(this.counts.malformed, `header ${name} missing or not a string: ${text}`);
    }
    if (headers[HEADER.run] !== this.o.runId) return void note(this.counts.foreign, `${String(headers[HEADER.run])}: ${text}`);
    const seq = Number(headers[HEADER.seq]);
    if (!Number.isInteger(seq) || seq < 1) return void note(this.counts.malformed, `header ${HEADER.seq} is not a positive integer: ${text}`);
    const key = headers[HEADER.key] as string;
    const producer = headers[HEADER.producer] as string;
    return { id: `${producer}\u0000${key}\u0000${seq}`, key, producer, seq };
  }

  private start(m: { id: string; key: string; producer: string; seq: number }, at: number, o: Record<string, unknown>, text: string): void {
    if (o.lane !== undefined && typeof o.lane !== 'string') return void note(this.counts.malformed, `"lane" must be a string: ${text}`);
    if (o.offset !== undefined && (typeof o.offset !== 'number' || !Number.isFinite(o.offset))) return void note(this.counts.malformed, `"offset" must be a number: ${text}`);
    const e: ProcessEvent = { type: 'process', key: m.key, producer: m.producer, seq: m.seq, consumer: this.o.consumer, received: at, start: at };
    if (o.lane !== undefined) e.lane = this.o.lane(o.lane as string);
    if (o.offset !== undefined) e.offset = o.offset as number;
    const list = this.open.get(m.id);
    if (list) list.push(e);
    else this.open.set(m.id, [e]);
    this.openCount++;
    this.counts.started++;
  }

  private end(m: { id: string }, at: number, o: Record<string, unknown>, text: string): void {
    const outcome = o.outcome ?? 'ok';
    if (outcome !== 'ok' && outcome !== 'error') return void note(this.counts.malformed, `"outcome" must be ok or error: ${text}`);
    const list = this.open.get(m.id);
    const e = list?.shift();
    if (!e) return void note(this.counts.unmatched, text);
    if (list!.length === 0) this.open.delete(m.id);
    this.openCount--;
    // A clock read a little off (another thread's stamp) must not make an end before its start.
    e.end = Math.max(at, e.start);
    e.outcome = outcome;
    if (outcome === 'ok') this.applied++;
    else this.errors++;
    this.o.write(e);
  }

  /** The starts never ended (the process died or was stopped mid-handling), written without an end. */
  close(): void {
    for (const list of this.open.values()) for (const e of list) this.o.write(e);
    this.open.clear();
    this.openCount = 0;
  }
}

/** What makes the run incomplete, one line each, naming the process; empty when its reports were all read. */
export function reportProblems(consumer: string, c: ReportCounts): string[] {
  const out: string[] = [];
  const say = (t: Tally, what: string) => {
    if (t.count > 0) out.push(`${consumer}: ${t.count} ${what} (e.g. ${t.samples.join(' | ')})`);
  };
  say(c.malformed, `malformed report line${c.malformed.count === 1 ? '' : 's'}`);
  say(c.foreign, `report${c.foreign.count === 1 ? '' : 's'} of another run's message${c.foreign.count === 1 ? '' : 's'}`);
  say(c.unmatched, `end report${c.unmatched.count === 1 ? '' : 's'} without a start`);
  return out;
}
