/**
 * The worker's side of one client process (docs/client-protocol.md): starts the process with
 * the socket's path in CONVOY_CLIENT_SOCKET, listens on that Unix domain socket, and speaks
 * newline-delimited JSON with it: hello (version checked), configure, a few pings to map its
 * clock, ready. Every line the client writes is checked against the protocol's schema. A client
 * that dies, says nothing within the handshake's bound, or writes a malformed line fails the
 * connection: its error names the line and carries the process's last log lines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nowMicros } from '../clock.ts';
import { ConvoyError, EXIT, InfraError } from '../errors.ts';
import { LineChannel } from '../line-protocol/channel.ts';
import { messageCheck } from '../line-protocol/check.ts';
import { ClockMap, type ClockSample } from './clock-map.ts';
import { CLIENT_PROTOCOL_VERSION, FROM_CLIENT, type ConfigureMessage, type FromClient, type HelloMessage, type ToClient } from './messages.ts';

const LAST_LINES = 20;
const PINGS = 5;

export interface ClientProcessOptions {
  /** The client's program and arguments. */
  command: string[];
  configure: Omit<ConfigureMessage, 'type'>;
  log(line: string): void;
  /** How long the client may take to connect, say hello and be ready (default 60 s). */
  handshakeMs?: number;
  /** Told once when the connection fails after the handshake (the process died, a malformed line). */
  onFailure?(error: Error): void;
}

/** A protocol version this convoy does not speak: one clear line, exit 3. */
export class ProtocolVersionError extends ConvoyError {
  constructor(client: string, version: unknown) {
    super(`client ${client} speaks client protocol version ${String(version)}; this convoy speaks version ${CLIENT_PROTOCOL_VERSION}`, EXIT.infrastructure);
  }
}

/** Every line a client writes is checked against its message's schema. */
const check = messageCheck(FROM_CLIENT);

export class ClientConnection {
  private readonly handlers = new Map<string, (m: any) => void>();
  private readonly lastLines: string[] = [];
  private failure?: Error;
  private closing = false;
  private readonly failureWaiters: ((e: Error) => void)[] = [];
  private nextRequest = 1;
  private readonly requests = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  clock?: ClockMap;
  hello?: HelloMessage;

  private constructor(
    private readonly options: ClientProcessOptions,
    private readonly child: ChildProcess,
    private readonly server: Server,
    private readonly dir: string,
  ) {}

  /** Starts the client process and completes the handshake; rejects with the reason it could not. */
  static async open(options: ClientProcessOptions): Promise<ClientConnection> {
    const dir = mkdtempSync(join(tmpdir(), 'convoy-client-'));
    const path = join(dir, 'client.sock');
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, () => resolve()));
    const [program, ...args] = options.command;
    const child = spawn(program!, args, { env: { ...process.env, CONVOY_CLIENT_SOCKET: path }, stdio: ['ignore', 'pipe', 'pipe'] });
    const c = new ClientConnection(options, child, server, dir);
    child.on('error', (e) => c.fail(new InfraError(`client process ${program}: ${e.message}`)));
    const out = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) c.remember(line);
    };
    child.stdout!.on('data', out);
    child.stderr!.on('data', out);
    child.on('exit', (code, signal) => {
      if (!c.closing || code !== 0) c.fail(new InfraError(`client process ${program} exited (${signal ?? `code ${code}`})`));
    });
    try {
      await c.handshake(options.handshakeMs ?? 60_000);
    } catch (e) {
      await c.close().catch(() => {});
      throw e;
    }
    return c;
  }

  private remember(line: string): void {
    this.lastLines.push(line);
    if (this.lastLines.length > LAST_LINES) this.lastLines.shift();
  }

  /** The process's last log lines (its own log messages, stdout and stderr). */
  get lastLog(): string[] {
    return [...this.lastLines];
  }

  private async handshake(boundMs: number): Promise<void> {
    const name = this.options.command[0]!;
    const bound = new Promise<never>((_, reject) => {
      const t = setTimeout(() => reject(new InfraError(`client process ${name}: no handshake within ${boundMs} ms`, this.lastLog)), boundMs);
      t.unref();
    });
    const step = <T>(p: Promise<T>) => Promise.race([p, bound, this.failed()]);
    const socket = await step(new Promise<Socket>((resolve) => this.server.once('connection', resolve)));
    this.attach(socket);
    const hello = await step(this.next<HelloMessage>('hello'));
    if (hello.protocol !== CLIENT_PROTOCOL_VERSION) throw new ProtocolVersionError(`${hello.client.name} ${hello.client.version}`, hello.protocol);
    this.hello = hello;
    const ready = this.next('ready');
    this.write({ type: 'configure', ...this.options.configure });
    await step(ready);
    this.clock = await step(this.mapClock());
    this.options.log(`client ${hello.client.name} ${hello.client.version}: ready; its clock maps to the run's within ${Math.round(this.clock.errorUs)} µs`);
  }

  /** A few pings: the clock mapping from the narrowest round trip. */
  private async mapClock(): Promise<ClockMap> {
    const samples: ClockSample[] = [];
    for (let i = 0; i < PINGS; i++) samples.push(await this.ping());
    return ClockMap.fromSamples(samples);
  }

  async ping(): Promise<ClockSample> {
    const id = this.nextRequest++;
    const pong = this.next<{ clockUs: number }>('pong', (m) => m.id === id);
    const sentUs = nowMicros();
    this.write({ type: 'ping', id });
    const p = await pong;
    return { sentUs, receivedUs: nowMicros(), clientUs: p.clockUs };
  }

  /** The next message of a type (matching `where`), once. */
  private next<T>(type: string, where: (m: any) => boolean = () => true): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const previous = this.handlers.get(type);
      this.handlers.set(type, (m) => {
        if (!where(m)) return previous?.(m);
        if (previous) this.handlers.set(type, previous);
        else this.handlers.delete(type);
        resolve(m as T);
      });
      this.failureWaiters.push(reject);
    });
  }

  /** Handles every message of a type from now on. */
  on<T extends FromClient['type']>(type: T, handler: (m: Extract<FromClient, { type: T }>) => void): void {
    this.handlers.set(type, handler);
    // What came before anyone listened (a consumer's first deliveries during the handshake), in order.
    const waiting = this.unheard.filter((m) => m.type === type);
    this.unheard = this.unheard.filter((m) => m.type !== type);
    for (const m of waiting) handler(m as Extract<FromClient, { type: T }>);
  }
  private unheard: FromClient[] = [];

  private attach(socket: Socket): void {
    socket.setNoDelay(true);
    this.channel = new LineChannel<FromClient, ToClient>(socket, {
      check,
      onMessage: (m) => this.receive(m),
      onMalformed: (problem, line) => this.fail(new InfraError(`client wrote a malformed line (${problem}): ${line}`, this.lastLog)),
      onClose: (e) => {
        if (e) return this.fail(new InfraError(`client socket: ${e.message}`));
        // A process that is dying closes its socket first: give its exit a moment to say how.
        if (!this.closing) setTimeout(() => this.fail(new InfraError('client closed its socket')), 500).unref();
      },
    });
  }
  private channel?: LineChannel<FromClient, ToClient>;

  private receive(m: FromClient): void {
    if (m.type === 'log') {
      this.remember(m.line);
      return this.options.log(m.line);
    }
    if (m.type === 'fatal') {
      for (const l of m.log) this.remember(l);
      return this.fail(new InfraError(`client failed: ${m.message}`, this.lastLog));
    }
    if (m.type === 'reply') {
      const r = this.requests.get(m.id);
      this.requests.delete(m.id);
      if (m.error !== undefined) r?.reject(new Error(m.error));
      else r?.resolve(m.result);
      return;
    }
    const handler = this.handlers.get(m.type);
    if (handler) handler(m);
    else this.unheard.push(m);
  }

  write(m: ToClient): void {
    if (this.failure) throw this.failure;
    this.channel!.write(m);
  }

  /** An optional capability of the client; rejects when it has not declared it. */
  request(what: 'refresh-metadata' | 'errors-seen' | 'describe-group'): Promise<unknown> {
    if (!this.hello?.capabilities.includes(what)) return Promise.reject(new Error(`client ${this.hello?.client.name} cannot ${what}`));
    const id = this.nextRequest++;
    return new Promise((resolve, reject) => {
      this.requests.set(id, { resolve, reject });
      this.write({ type: 'request', id, what });
    });
  }

  /** Rejects once the connection fails. */
  failed(): Promise<never> {
    return new Promise<never>((_, reject) => {
      if (this.failure) reject(this.failure);
      else this.failureWaiters.push(reject);
    });
  }

  private fail(e: Error): void {
    if (this.failure || this.closing) return;
    const detail = e instanceof ConvoyError && e.detail.length ? e : new InfraError(e.message, this.lastLog);
    this.failure = detail;
    for (const w of this.failureWaiters.splice(0)) w(detail);
    for (const r of this.requests.values()) r.reject(detail);
    this.requests.clear();
    this.options.onFailure?.(detail);
    this.child.kill('SIGKILL');
  }

  /** Asks the client to close, waits (bounded) for closed and its exit, then frees the socket. */
  async close(boundMs = 10_000): Promise<void> {
    const wasFailed = this.failure !== undefined;
    this.closing = true;
    const open = this.channel?.open === true;
    if (!wasFailed && open && this.clock) {
      // The mapping made at the start must still hold at the end (one host, one rate).
      const sample = await Promise.race([this.ping(), new Promise<undefined>((r) => setTimeout(() => r(undefined), 1_000).unref())]).catch(() => undefined);
      if (sample && !this.clock.agrees(sample, 1_000)) {
        this.options.log(`client ${this.hello?.client.name}: its clock no longer maps to the run's within ${Math.round(this.clock.errorUs)} µs (off by ${Math.round(this.clock.toRun(sample.clientUs) - (sample.sentUs + sample.receivedUs) / 2)} µs at the end)`);
      }
    }
    if (!wasFailed && this.channel?.open) {
      const closed = new Promise<void>((resolve) => this.handlers.set('closed', () => resolve()));
      this.channel.write({ type: 'close' });
      await Promise.race([closed, new Promise((r) => setTimeout(r, boundMs).unref())]);
    }
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((r) => this.child.once('exit', r));
      await Promise.race([exited, new Promise((r) => setTimeout(r, 2_000).unref())]);
      if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    }
    this.channel?.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
