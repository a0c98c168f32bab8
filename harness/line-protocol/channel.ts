/**
 * Newline-delimited JSON over any byte stream (a Unix domain socket, a child's extra stdio pipe,
 * a TCP connection): the framing convoy's stream protocols share (the client protocol, the
 * worker protocol). One JSON object per line, UTF-8, ending in `\n`. A line longer than the
 * bound, one that is not a JSON object, or one the protocol's own check refuses is malformed:
 * the channel reports it once and reads nothing more (the protocol then ends the other side).
 */
import type { Duplex } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/** The longest line taken, in characters: far above any message (a payload is base64 of at most a few MB). */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;
/** How much of a malformed line an error quotes. */
const QUOTED = 200;

export interface LineChannelOptions<In> {
  /** The protocol's check of one parsed line: the problem, or undefined for a message of the protocol. */
  check(m: Record<string, unknown>): string | undefined;
  onMessage(m: In): void;
  /** A malformed line: what is wrong with it and its start. Reported once; nothing more is read. */
  onMalformed(problem: string, line: string): void;
  /** The other side ended the stream, or it broke (`error`). Reported once. */
  onClose(error?: Error): void;
  maxLineChars?: number;
}

export class LineChannel<In, Out extends object> {
  private readonly decoder = new StringDecoder('utf8');
  /** The start of a line whose end has not come yet. */
  private partial = '';
  private stopped = false;
  private closed = false;
  private corked = false;
  private readonly max: number;

  constructor(
    readonly stream: Duplex,
    private readonly options: LineChannelOptions<In>,
  ) {
    this.max = options.maxLineChars ?? MAX_LINE_CHARS;
    stream.on('data', (chunk: Buffer | string) => this.read(typeof chunk === 'string' ? chunk : this.decoder.write(chunk)));
    // A write to a peer that just went away fails with EPIPE as an 'error' event: never unhandled.
    stream.on('error', (e) => this.close(e));
    stream.on('end', () => this.close());
    stream.on('close', () => this.close());
  }

  /** Whether lines can still be written (the stream is open and nothing malformed came). */
  get open(): boolean {
    return !this.closed && !this.stream.destroyed && this.stream.writable;
  }

  private read(text: string): void {
    if (this.stopped) return;
    let start = 0;
    let nl = text.indexOf('\n');
    while (nl >= 0) {
      const line = start === 0 && this.partial ? this.partial + text.slice(0, nl) : text.slice(start, nl);
      if (start === 0) this.partial = '';
      start = nl + 1;
      if (line.length > this.max) return this.malformed(`a line of ${line.length} characters, over the bound of ${this.max}`, line);
      if (line.trim()) this.receive(line);
      if (this.stopped) return;
      nl = text.indexOf('\n', start);
    }
    this.partial += start === 0 ? text : text.slice(start);
    if (this.partial.length > this.max) this.malformed(`a line of more than ${this.max} characters`, this.partial);
  }

  private receive(line: string): void {
    let m: unknown;
    try {
      m = JSON.parse(line);
    } catch {
      return this.malformed('not JSON', line);
    }
    if (typeof m !== 'object' || m === null || Array.isArray(m)) return this.malformed('not a JSON object', line);
    const problem = this.options.check(m as Record<string, unknown>);
    if (problem) return this.malformed(problem, line);
    this.options.onMessage(m as In);
  }

  private malformed(problem: string, line: string): void {
    this.stopped = true;
    this.partial = '';
    this.options.onMalformed(problem, line.length > QUOTED ? `${line.slice(0, QUOTED)}...` : line);
  }

  private close(error?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.options.onClose(error);
  }

  /** Writes one message; lines written in one turn of the event loop go out in one write. False once closed. */
  write(m: Out): boolean {
    if (!this.open) return false;
    if (!this.corked) {
      this.corked = true;
      this.stream.cork();
      process.nextTick(() => {
        this.corked = false;
        this.stream.uncork();
      });
    }
    this.stream.write(JSON.stringify(m) + '\n');
    return true;
  }

  /** Ends this side: what was written goes out first. Resolves once it has (or the stream is gone), at most `boundMs` later. */
  end(boundMs = 2_000): Promise<void> {
    const stream = this.stream;
    if (stream.destroyed || stream.writableFinished) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const t = setTimeout(done, boundMs);
      t.unref();
      function done() {
        clearTimeout(t);
        resolve();
      }
      stream.once('close', done);
      stream.end(done);
    });
  }

  /** Drops the stream at once. */
  destroy(): void {
    this.stopped = true;
    this.stream.destroy();
  }
}
