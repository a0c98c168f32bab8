/**
 * The runner's end of one worker process's stream (docs/worker-protocol.md). It waits for the
 * worker's hello and answers welcome, or refused with one line naming both sides' versions;
 * what the runner sends before that waits. Every line the worker writes is checked against its
 * message's schema (messages.ts): a malformed one fails the channel, and the worker's handle
 * ends the worker. The channel lives as long as the process: a worker reused for another run
 * keeps it (pool.ts), and one handle at a time listens.
 */
import type { Duplex } from 'node:stream';
import { convoyVersion } from '../convoy-version.ts';
import { LineChannel } from '../line-protocol/channel.ts';
import { messageCheck } from '../line-protocol/check.ts';
import { WORKER_PROTOCOL_VERSION } from './message-names.ts';
import { FROM_WORKER } from './messages.ts';
import type { FromWorker, ToWorker } from './protocol.ts';

const check = messageCheck(FROM_WORKER);

export interface ChannelListener {
  onMessage(m: FromWorker): void;
  /** The channel failed (a malformed line, a refused hello): one line saying why. Told once. */
  onFailure(reason: string): void;
}

export class WorkerChannel {
  private readonly lines: LineChannel<FromWorker, ToWorker>;
  private welcomed = false;
  private waiting: ToWorker[] = [];
  private listener?: ChannelListener;
  /** Why the channel failed, once it has. */
  failure?: string;
  /** The failure is the worker's hello refused (the worker was told, and exits by itself). */
  refused = false;
  /** Resolves when the stream has closed: every line the worker wrote has been read. */
  readonly closed: Promise<void>;

  constructor(stream: Duplex) {
    let closed!: () => void;
    this.closed = new Promise((r) => (closed = r));
    this.lines = new LineChannel(stream, {
      check,
      onMessage: (m) => this.receive(m),
      onMalformed: (problem, line) => this.fail(`it wrote a malformed line (${problem}): ${line}`),
      onClose: () => closed(),
    });
  }

  private receive(m: FromWorker): void {
    if (!this.welcomed) {
      if (m.type !== 'hello') return this.fail(`it wrote ${m.type} before its hello`);
      if (m.protocol !== WORKER_PROTOCOL_VERSION || m.convoy !== convoyVersion()) {
        const reason = `worker (pid ${m.pid}) speaks worker protocol ${m.protocol} of convoy ${m.convoy}; this runner speaks worker protocol ${WORKER_PROTOCOL_VERSION} of convoy ${convoyVersion()}`;
        this.refused = true;
        this.lines.write({ type: 'refused', reason });
        void this.lines.end();
        return this.fail(reason);
      }
      this.welcomed = true;
      this.lines.write({ type: 'welcome', protocol: WORKER_PROTOCOL_VERSION, convoy: convoyVersion() });
      for (const w of this.waiting.splice(0)) this.lines.write(w);
      return;
    }
    this.listener?.onMessage(m);
  }

  private fail(reason: string): void {
    if (this.failure) return;
    this.failure = reason;
    this.waiting = [];
    this.listener?.onFailure(reason);
  }

  /** Sends a message: at once after the handshake, else when it is done. Dropped once the channel failed or closed. */
  send(m: ToWorker): void {
    if (this.failure) return;
    if (this.welcomed) this.lines.write(m);
    else this.waiting.push(m);
  }

  /** From now on `l` hears the worker (a failure that came before, at once); `undefined`: nobody does. */
  listen(l: ChannelListener | undefined): void {
    this.listener = l;
    if (l && this.failure) l.onFailure(this.failure);
  }

  /** Whether the stream is open and the channel has not failed. */
  get open(): boolean {
    return this.lines.open && !this.failure;
  }

  /** The stream, for ref/unref (pool.ts). */
  get stream(): Duplex {
    return this.lines.stream;
  }

  /** Ends the runner's side: the worker reads the end and exits (a worker let go). */
  end(): void {
    void this.lines.end();
  }
}
