/**
 * A worker's end of its stream to the runner (docs/worker-protocol.md): file descriptor 3, a
 * pipe the runner made when it started the process (pool.ts). The worker says hello with its
 * protocol and convoy versions and waits for welcome; refused is one line on stderr and exit 3.
 * The runner is convoy itself, of the same version (the handshake says so), so a line of its is
 * checked only for being a JSON object of a known type; anything else is malformed, and the
 * worker ends with that reason (fatal, exit 3). When the stream ends, the runner is gone: the
 * worker exits at once, as it must never linger.
 */
import { Socket } from 'node:net';
import { convoyVersion } from '../convoy-version.ts';
import { LineChannel } from '../line-protocol/channel.ts';
import { RUNNER_FD, TO_WORKER_TYPES, WORKER_PROTOCOL_VERSION } from './message-names.ts';
import type { FromWorker, ToWorker } from './protocol.ts';

const known = new Set<string>(TO_WORKER_TYPES);
const check = (m: Record<string, unknown>) => (typeof m.type === 'string' && known.has(m.type) ? undefined : `unknown message type ${JSON.stringify(m.type)}`);

export interface RunnerChannelOptions {
  /** The runner wrote a malformed line, or refused the hello: one line saying why. */
  onFailure(reason: string): void;
  /** The stream ended: the runner is gone. */
  onGone(): void;
}

export class RunnerChannel {
  private readonly lines: LineChannel<ToWorker, FromWorker>;
  private welcomed = false;
  private readonly handlers = new Set<(m: ToWorker) => void>();

  constructor(options: RunnerChannelOptions, fd = RUNNER_FD) {
    this.lines = new LineChannel(new Socket({ fd, readable: true, writable: true }), {
      check,
      onMessage: (m) => {
        if (this.welcomed) {
          for (const h of this.handlers) h(m);
        } else if (m.type === 'welcome') {
          this.welcomed = true;
        } else {
          options.onFailure(m.type === 'refused' ? `refused by the runner: ${m.reason}` : `the runner wrote ${m.type} before its welcome`);
        }
      },
      onMalformed: (problem, line) => options.onFailure(`the runner wrote a malformed line (${problem}): ${line}`),
      onClose: () => options.onGone(),
    });
    this.lines.write({ type: 'hello', protocol: WORKER_PROTOCOL_VERSION, convoy: convoyVersion(), pid: process.pid });
  }

  send(m: FromWorker): void {
    this.lines.write(m);
  }

  get open(): boolean {
    return this.lines.open;
  }

  /** `h` hears every message from the runner until `off`. */
  on(h: (m: ToWorker) => void): void {
    this.handlers.add(h);
  }

  off(h: (m: ToWorker) => void): void {
    this.handlers.delete(h);
  }

  /** Ends the worker's side once what it wrote is out (bounded): the process exits next. */
  close(): Promise<void> {
    return this.lines.end();
  }
}

let opened: RunnerChannel | undefined;

/** Opens this worker's channel to the runner (main.ts, once, at the process's start). */
export function openRunnerChannel(options: RunnerChannelOptions): RunnerChannel {
  opened ??= new RunnerChannel(options);
  return opened;
}

/** The worker's channel to the runner; undefined in a process the runner did not start. */
export function runnerChannel(): RunnerChannel | undefined {
  return opened;
}
