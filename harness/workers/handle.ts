import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { appendFileSync } from 'node:fs';
import { InfraError } from '../errors.ts';
import type { BrokerHost, PeerSession } from '../broker/in-process.ts';
import { tailFile } from '../runtime/process.ts';
import { keepIdle, reuseAllowed, workerProcess } from './pool.ts';
import type { WorkerChannel } from './worker-channel.ts';
import { emptyStats, type FromWorker, type ToWorker, type WorkerInit, type WorkerStats } from './protocol.ts';

/**
 * A worker process elsewhere (a convoy agent's, harness/agent/): what the handle needs of it. Its
 * channel carries the worker protocol as a local one's does; `pid` is on its own host.
 */
export interface WorkerPort {
  channel: WorkerChannel;
  /** Where it runs, for the run's marks: a host name, or host:port of its agent. */
  where: string;
  pid(): number | undefined;
  onExit(cb: (code: number | null, signal: NodeJS.Signals | null) => void): void;
  offExit(cb: (code: number | null, signal: NodeJS.Signals | null) => void): void;
  /** Signals its process group. */
  signal(sig: NodeJS.Signals): void;
}

/**
 * The runner's side of one worker of one run: its process (pool.ts: its own process group,
 * watched by the reaper; an idle one of an earlier run when the run's broker is in-process),
 * its stream (worker-channel.ts), the latest stats, and a log file. The worker is done
 * (`exited`) when its process has exited and its last lines are read or, reused, when it
 * reports itself idle. A malformed line from it ends it at once (kill -9): its run is unknown,
 * with the line in the reason.
 */
export class WorkerHandle {
  private readonly proc?: ChildProcess;
  private readonly port?: WorkerPort;
  private readonly channel: WorkerChannel;
  private readonly startKey?: string;
  stats: WorkerStats = emptyStats();
  exited = false;
  exitCode: number | null = null;
  /** Set by a fault that kills this worker on purpose: its death is not a harness failure. */
  killedByFault = false;
  /** A fault signalled the process (froze, killed it): it is never reused. */
  private signalled = false;
  private listeners = new Set<(m: FromWorker) => void>();
  private doneWaiters = new Set<() => void>();
  private fatal?: FromWorker & { type: 'fatal' };
  private readonly detach: (idle: boolean) => void;

  /** Links of this worker's clients to an in-process broker, by link number. */
  private readonly brokerSessions = new Map<number, PeerSession>();

  constructor(readonly init: WorkerInit, readonly logFile: string, private readonly log: (line: string) => void, private readonly host?: BrokerHost, port?: WorkerPort) {
    const reusable = !port && reuseAllowed(host !== undefined);
    let channel: WorkerChannel;
    if (port) {
      this.port = port;
      channel = port.channel;
    } else {
      const local = workerProcess(init.id, logFile, reusable);
      this.proc = local.child;
      this.startKey = local.key;
      channel = local.channel;
    }
    this.channel = channel;
    const onMessage = (m: FromWorker) => {
      if (this.exited) return;
      if (m.type === 'stats' || m.type === 'stopped') this.stats = m.stats;
      if (m.type === 'log') this.log(`${init.id}: ${m.line}`);
      if (m.type === 'fatal') this.fatal = m;
      if (m.type === 'broker-open' || m.type === 'broker-call' || m.type === 'broker-close') this.serveBroker(m);
      this.listeners.forEach((l) => l(m));
      if (m.type === 'idle') this.done(0, '0', true);
    };
    const onFailure = (reason: string) => {
      this.fatal = { type: 'fatal', message: reason };
      this.listeners.forEach((l) => l({ type: 'fatal', message: reason }));
      // A worker refused at the handshake exits by itself, its reason in its log; one that wrote a malformed line is not trusted to.
      if (channel.refused) setTimeout(() => this.signal('SIGKILL'), 5_000).unref();
      else this.signal('SIGKILL');
    };
    // The process's last lines (its stopped, its fatal) may still be on their way when it exits.
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      const bound = new Promise<void>((r) => setTimeout(r, 1_000).unref());
      void Promise.race([channel.closed, bound]).then(() => this.done(code ?? (signal ? 128 : null), String(signal ?? code), false));
    };
    // A reused process's output comes through pipes: this run's lines go to this run's log.
    const onOutput = (chunk: Buffer) => appendFileSync(logFile, chunk);
    channel.listen({ onMessage, onFailure });
    const child = this.proc;
    const outputs: Readable[] = child ? ([child.stdout, child.stderr].filter(Boolean) as Readable[]) : [];
    if (child) child.on('exit', onExit);
    else port!.onExit(onExit);
    for (const o of outputs) o.on('data', onOutput);
    // An exited process's last output may come after its exit: its pipes end by themselves.
    this.detach = (idle) => {
      channel.listen(undefined);
      if (child) child.off('exit', onExit);
      else port!.offExit(onExit);
      if (!idle) return;
      for (const o of outputs) o.off('data', onOutput);
    };
    this.send({ type: 'init', init, ...(reusable ? { reusable: true } : {}) });
  }

  /** The run is over for this worker: its process exited, or (idle) waits in the pool for another run. */
  private done(code: number | null, how: string, idle: boolean): void {
    if (this.exited) return;
    this.exited = true;
    this.exitCode = code;
    this.detach(idle);
    // A dead worker's clients are gone: the broker gives their deliveries to others.
    for (const session of this.brokerSessions.values()) session.closed();
    this.brokerSessions.clear();
    // A process a fault froze or meant to kill is not trusted with another run.
    if (idle && this.proc) keepIdle({ child: this.proc, channel: this.channel }, this.signalled || this.killedByFault ? undefined : this.startKey);
    this.listeners.forEach((l) => l({ type: 'fatal', message: `exited (${how})` }));
    this.doneWaiters.forEach((w) => w());
    this.doneWaiters.clear();
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
    if (m.call === undefined) {
      const failed = (error: string) => this.log(`${this.init.id}: broker ${m.method}: ${error}`);
      if (!session) return failed('broker link not open');
      session.call(m.method, m.args).catch((err: Error) => failed(err.message));
      return;
    }
    const call = m.call;
    const reply = (r: { ok: boolean; value?: unknown; error?: string }) => this.send({ type: 'broker-reply', call, ...r });
    if (!session) return reply({ ok: false, error: this.host ? 'broker link not open' : 'this run\'s broker is not in-process' });
    session.call(m.method, m.args).then((value) => reply({ ok: true, value }), (err: Error) => reply({ ok: false, error: err.message }));
  }

  get id(): string {
    return this.init.id;
  }

  /** Why the worker's role ended, when it said (its fatal message and detail lines). */
  get fatalReport(): { message: string; detail: string[] } | undefined {
    return this.fatal ? { message: this.fatal.message, detail: this.fatal.detail ?? [] } : undefined;
  }

  /** The worker's process id on its host (while this run has it). */
  get pid(): number | undefined {
    return this.proc ? this.proc.pid : this.port!.pid();
  }

  /** Where the worker runs: undefined here, else its agent. */
  get where(): string | undefined {
    return this.port?.where;
  }

  send(msg: ToWorker): void {
    if (!this.exited) this.channel.send(msg);
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

  /** Signals the worker's process group (a fault's doing: the process is not reused after). */
  signal(sig: NodeJS.Signals): void {
    this.signalled = true;
    this.signalGroup(sig);
  }

  private signalGroup(sig: NodeJS.Signals): void {
    if (this.exited) return;
    if (this.port) return this.port.signal(sig);
    if (!this.proc?.pid) return;
    try {
      process.kill(-this.proc.pid, sig);
    } catch {
      /* gone */
    }
  }

  /** Waits until the worker is done (exited, or idle); false after `timeoutMs`. */
  waitExit(timeoutMs: number): Promise<boolean> {
    if (this.exited) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        resolve(true);
      };
      const t = setTimeout(() => {
        this.doneWaiters.delete(done);
        resolve(false);
      }, timeoutMs);
      this.doneWaiters.add(done);
    });
  }

  /** Asks the worker to stop cleanly; kills it when it does not within the grace period. */
  async stop(graceMs = 15_000): Promise<void> {
    if (this.exited) return;
    this.signalGroup('SIGCONT'); // a frozen worker cannot stop itself
    this.send({ type: 'stop' });
    if (!(await this.waitExit(graceMs))) {
      this.log(`${this.id}: did not stop within ${graceMs} ms, killing it`);
      this.signal('SIGKILL');
      await this.waitExit(5_000);
    }
  }
}
