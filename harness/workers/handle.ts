import { fork, type ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InfraError } from '../errors.ts';
import type { BrokerHost, PeerSession } from '../broker/in-process.ts';
import { ownProcessGroup } from '../runtime/cleanup.ts';
import { OWNER_ENV, ensureReaper, ownerTag, watchGroup } from '../runtime/reaper.ts';
import { tailFile } from '../runtime/process.ts';
import { sendToChild } from './ipc-send.ts';
import { emptyStats, type FromWorker, type ToWorker, type WorkerInit, type WorkerStats } from './protocol.ts';

const WORKER_MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
/** tsx's loader, by absolute URL so workers start from any working directory. */
const TSX_LOADER = import.meta.resolve('tsx');

/**
 * The runner's side of one worker process: its own process group (so a kill -9 fault and the
 * final clean-up reach it and anything it started), IPC, the latest stats, and a log file.
 */
export class WorkerHandle {
  readonly child: ChildProcess;
  stats: WorkerStats = emptyStats();
  exited = false;
  exitCode: number | null = null;
  /** Set by a fault that kills this worker on purpose: its death is not a harness failure. */
  killedByFault = false;
  private listeners = new Set<(m: FromWorker) => void>();
  private releaseGroup: () => void;
  private fatal?: FromWorker & { type: 'fatal' };

  /** Links of this worker's clients to an in-process broker, by link number. */
  private readonly brokerSessions = new Map<number, PeerSession>();

  constructor(readonly init: WorkerInit, readonly logFile: string, private readonly log: (line: string) => void, private readonly host?: BrokerHost) {
    ensureReaper();
    const out = openSync(logFile, 'a');
    try {
      this.child = fork(WORKER_MAIN, [], {
        env: { ...process.env, [OWNER_ENV]: ownerTag() },
        // CONVOY_WORKER_NODE_ARGS adds node flags to every worker, e.g. "--cpu-prof" to profile.
        execArgv: ['--import', TSX_LOADER, ...(process.env.CONVOY_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean)],
        stdio: ['ignore', out, out, 'ipc'],
        detached: true,
        serialization: 'advanced',
      });
    } finally {
      closeSync(out);
    }
    this.releaseGroup = this.child.pid ? ownProcessGroup(this.child.pid) : () => {};
    const unwatch = this.child.pid ? watchGroup(this.child.pid, `worker ${init.id}`) : () => {};
    this.child.on('message', (m: FromWorker) => {
      if (m.type === 'stats' || m.type === 'stopped') this.stats = m.stats;
      if (m.type === 'log') this.log(`${init.id}: ${m.line}`);
      if (m.type === 'fatal') this.fatal = m;
      if (m.type === 'broker-open' || m.type === 'broker-call' || m.type === 'broker-close') this.serveBroker(m);
      this.listeners.forEach((l) => l(m));
    });
    this.child.on('exit', (code, signal) => {
      this.exited = true;
      this.exitCode = code ?? (signal ? 128 : null);
      this.releaseGroup();
      // A dead worker's clients are gone: the broker gives their deliveries to others.
      for (const session of this.brokerSessions.values()) session.closed();
      this.brokerSessions.clear();
      unwatch();
      this.listeners.forEach((l) => l({ type: 'fatal', message: `exited (${signal ?? code})` }));
    });
    this.send({ type: 'init', init });
  }

  private serveBroker(m: Extract<FromWorker, { type: 'broker-open' | 'broker-call' | 'broker-close' }>): void {
    if (m.type === 'broker-open') {
      if (!this.host) return;
      const link = m.link;
      this.brokerSessions.set(link, this.host.connect(`${this.init.id}#${link}`, (msg) => this.send({ type: 'broker-push', link, msg })));
      return;
    }
    const session = this.brokerSessions.get(m.link);
    if (m.type === 'broker-close') {
      session?.closed();
      this.brokerSessions.delete(m.link);
      return;
    }
    const reply = (r: { ok: boolean; value?: unknown; error?: string }) => this.send({ type: 'broker-reply', call: m.call, ...r });
    if (!session) return reply({ ok: false, error: this.host ? 'broker link not open' : 'this run\'s broker is not in-process' });
    session.call(m.method, m.args).then((value) => reply({ ok: true, value }), (err: Error) => reply({ ok: false, error: err.message }));
  }

  get id(): string {
    return this.init.id;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  send(msg: ToWorker): void {
    if (!this.exited) sendToChild(this.child, msg);
  }

  onMessage(l: (m: FromWorker) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Waits for a message of the given type; fails with the worker's log tail if it dies. */
  waitFor<T extends FromWorker['type']>(type: T, timeoutMs: number, what: string): Promise<Extract<FromWorker, { type: T }>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new InfraError(`${this.id}: ${what} timed out after ${Math.round(timeoutMs / 1000)} s`, tailFile(this.logFile, 10)));
      }, timeoutMs);
      const off = this.onMessage((m) => {
        if (m.type === type) {
          clearTimeout(timer);
          off();
          resolve(m as Extract<FromWorker, { type: T }>);
        } else if (m.type === 'fatal') {
          clearTimeout(timer);
          off();
          reject(new InfraError(`${this.id}: ${m.message} (${what})`, [...(m.detail ?? []), ...tailFile(this.logFile, 10)]));
        }
      });
      if (this.fatal && type !== 'fatal') {
        clearTimeout(timer);
        off();
        reject(new InfraError(`${this.id}: ${this.fatal.message}`, this.fatal.detail ?? []));
      }
    });
  }

  /** Signals the worker's process group. */
  signal(sig: NodeJS.Signals): void {
    if (!this.child.pid || this.exited) return;
    try {
      process.kill(-this.child.pid, sig);
    } catch {
      /* gone */
    }
  }

  waitExit(timeoutMs: number): Promise<boolean> {
    if (this.exited) return Promise.resolve(true);
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(false), timeoutMs);
      this.child.once('exit', () => {
        clearTimeout(t);
        resolve(true);
      });
    });
  }

  /** Asks the worker to stop cleanly; kills it when it does not within the grace period. */
  async stop(graceMs = 15_000): Promise<void> {
    if (this.exited) return;
    this.signal('SIGCONT'); // a frozen worker cannot stop itself
    this.send({ type: 'stop' });
    if (!(await this.waitExit(graceMs))) {
      this.log(`${this.id}: did not stop within ${graceMs} ms, killing it`);
      this.signal('SIGKILL');
      await this.waitExit(5_000);
    }
  }
}
