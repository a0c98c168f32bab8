/**
 * The runner's side of one `convoy agent` (server.ts, docs/agents.md): a control connection with
 * heartbeats, and a connection per worker placed there, which becomes the worker's stream. An
 * agent unheard for `lostAfterMs` is lost (it died, or the network is cut): `onLost` says why,
 * once, and the run that placed workers there cannot be complete.
 */
import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { nowMicros } from '../clock.ts';
import { convoyVersion } from '../convoy-version.ts';
import { InfraError, InputError } from '../errors.ts';
import { LineChannel } from '../line-protocol/channel.ts';
import { messageCheck } from '../line-protocol/check.ts';
import { readFirstLine } from './first-line.ts';
import { AGENT_PROTOCOL_VERSION, FROM_AGENT, type AgentSignal, type FromAgent, type ToAgent } from './messages.ts';

export interface AgentAddress {
  host: string;
  port: number;
}

export interface AgentLinkOptions {
  address: AgentAddress;
  token: string;
  runId: string;
  /** TLS: the CA that signed the agent's certificate (PEM); plain TCP without it. */
  tlsCa?: string;
  /** Heartbeat period (default 1 s) and how long an unheard agent is lost after (default 10 s). */
  pingMs?: number;
  lostAfterMs?: number;
  connectTimeoutMs?: number;
}

export interface AgentInfo {
  host: string;
  cores: number;
  pid: number;
  runDir: string;
}

/** A clock round trip: the runner's clock when it asked and when it heard (µs), the agent's reading, and its granularity. */
export interface ClockRoundTrip {
  sentUs: number;
  receivedUs: number;
  agentUs: number;
  granularityUs: number;
}

const checkFromAgent = messageCheck(FROM_AGENT);

/** "host:port" → an address; bad input (one clear line naming the flag) when it is not one. Port 0 only where `allowAnyPort`. */
export function parseAgentAddress(text: string, flag = '--agent', allowAnyPort = false): AgentAddress {
  const m = /^(\[[0-9a-fA-F:]+\]|[^:\s]+):(\d{1,5})$/.exec(text.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port < (allowAnyPort ? 0 : 1) || port > 65535) throw new InputError(`${flag} ${text}: expected host:port, such as 10.0.0.7:7411`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

export const agentName = (a: AgentAddress): string => `${a.host}:${a.port}`;

async function open(o: AgentLinkOptions, hello: Omit<Extract<ToAgent, { type: 'hello' }>, 'type' | 'protocol' | 'convoy' | 'token' | 'runId'>): Promise<{ socket: Socket; welcome: Extract<FromAgent, { type: 'welcome' }> }> {
  const name = agentName(o.address);
  const socket: Socket = o.tlsCa
    ? // SNI takes a host name only; an address is checked against the certificate all the same.
      connectTls({ host: o.address.host, port: o.address.port, ca: o.tlsCa, ...(isIP(o.address.host) ? {} : { servername: o.address.host }) })
    : connectTcp({ host: o.address.host, port: o.address.port });
  socket.setNoDelay(true);
  socket.setKeepAlive(true, 5_000);
  const timeoutMs = o.connectTimeoutMs ?? 10_000;
  try {
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no connection within ${timeoutMs / 1000} s`)), timeoutMs);
      socket.once(o.tlsCa ? 'secureConnect' : 'connect', () => (clearTimeout(t), resolve()));
      socket.once('error', (e) => (clearTimeout(t), reject(e)));
    });
    socket.write(JSON.stringify({ type: 'hello', protocol: AGENT_PROTOCOL_VERSION, convoy: convoyVersion(), token: o.token, runId: o.runId, ...hello } satisfies ToAgent) + '\n');
    const line = await readFirstLine(socket, 1024 * 1024, timeoutMs);
    const m = JSON.parse(line) as FromAgent;
    if (m.type === 'refused') throw new Error(`refused: ${m.reason}`);
    if (m.type !== 'welcome') throw new Error(`it answered ${m.type} to the hello`);
    return { socket, welcome: m };
  } catch (err) {
    socket.destroy();
    throw new InfraError(`agent ${name}: ${(err as Error).message}`);
  }
}

export class AgentLink {
  readonly name: string;
  private readonly lines: LineChannel<FromAgent, ToAgent>;
  private nextId = 1;
  private readonly reads = new Map<number, { resolve(m: Extract<FromAgent, { type: 'data' }>): void; reject(e: Error): void }>();
  private readonly clockReads = new Map<number, { resolve(m: Extract<FromAgent, { type: 'clock-reading' }>): void; reject(e: Error): void }>();
  private readonly spawns = new Map<string, { resolve(pid: number): void; reject(e: Error): void }>();
  private readonly exitListeners = new Set<(worker: string, code: number | null, signal: string | null) => void>();
  private readonly lostListeners = new Set<(reason: string) => void>();
  private heardAt = Date.now();
  private readonly timer: NodeJS.Timeout;
  lost?: string;
  /**
   * This host's address as the agent reached it (the control connection's local end): where the
   * agent's workers reach a service the runner starts here, such as the PostgreSQL store.
   */
  readonly runnerAddress: string;

  private constructor(
    private readonly options: AgentLinkOptions,
    socket: Socket,
    readonly info: AgentInfo,
  ) {
    this.name = agentName(options.address);
    this.runnerAddress = (socket.localAddress ?? '127.0.0.1').replace(/^::ffff:(?=\d+\.)/, '');
    this.lines = new LineChannel<FromAgent, ToAgent>(socket, {
      check: checkFromAgent,
      onMessage: (m) => this.receive(m),
      onMalformed: (problem, line) => this.lose(`it wrote a malformed line (${problem}): ${line}`),
      onClose: (err) => this.lose(`its control connection closed${err ? ` (${err.message})` : ''}`),
    });
    socket.resume();
    const pingMs = options.pingMs ?? 1_000;
    const lostAfter = options.lostAfterMs ?? 10_000;
    this.timer = setInterval(() => {
      if (Date.now() - this.heardAt > lostAfter) return this.lose(`unheard for ${Math.round(lostAfter / 1000)} s`);
      this.lines.write({ type: 'ping', id: this.nextId++ });
    }, pingMs);
    this.timer.unref();
  }

  static async connect(options: AgentLinkOptions): Promise<AgentLink> {
    const { socket, welcome } = await open(options, { purpose: 'control' });
    if (!welcome.agent) {
      socket.destroy();
      throw new InfraError(`agent ${agentName(options.address)}: its welcome did not describe it`);
    }
    return new AgentLink(options, socket, welcome.agent);
  }

  private receive(m: FromAgent): void {
    this.heardAt = Date.now();
    switch (m.type) {
      case 'spawned':
        this.spawns.get(m.worker)?.resolve(m.pid);
        this.spawns.delete(m.worker);
        return;
      case 'spawn-failed':
        this.spawns.get(m.worker)?.reject(new InfraError(`agent ${this.name}: worker ${m.worker} did not start: ${m.reason}`));
        this.spawns.delete(m.worker);
        return;
      case 'exited':
        for (const l of this.exitListeners) l(m.worker, m.code, m.signal);
        return;
      case 'data':
        this.reads.get(m.id)?.resolve(m);
        this.reads.delete(m.id);
        return;
      case 'clock-reading':
        this.clockReads.get(m.id)?.resolve(m);
        this.clockReads.delete(m.id);
        return;
      default:
        return;
    }
  }

  private lose(reason: string): void {
    if (this.lost) return;
    this.lost = reason;
    clearInterval(this.timer);
    this.lines.destroy();
    const err = new InfraError(`agent ${this.name} lost: ${reason}`);
    for (const s of [...this.spawns.values(), ...this.reads.values(), ...this.clockReads.values()]) s.reject(err);
    this.spawns.clear();
    this.reads.clear();
    this.clockReads.clear();
    for (const l of this.lostListeners) l(reason);
  }

  /** Starts a worker process there; resolves with its pid on the agent's host. */
  spawn(worker: string): Promise<number> {
    if (this.lost) return Promise.reject(new InfraError(`agent ${this.name} lost: ${this.lost}`));
    return new Promise((resolve, reject) => {
      this.spawns.set(worker, { resolve, reject });
      this.lines.write({ type: 'spawn', worker });
    });
  }

  /** The worker's stream: a connection of its own, welcomed by the agent. */
  async attach(worker: string): Promise<Socket> {
    const { socket } = await open(this.options, { purpose: 'worker', worker });
    return socket;
  }

  signal(worker: string, signal: AgentSignal): void {
    this.lines.write({ type: 'signal', worker, signal });
  }

  /** Bytes of a file in the run's folder there, from `offset` (empty at its end). */
  read(file: string, offset: number): Promise<Buffer> {
    if (this.lost) return Promise.reject(new InfraError(`agent ${this.name} lost: ${this.lost}`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.reads.set(id, { resolve: (m) => (m.error ? reject(new InfraError(`agent ${this.name}: ${m.error}`)) : resolve(Buffer.from(m.bytes, 'base64'))), reject });
      this.lines.write({ type: 'read', id, file, offset });
    });
  }

  /** One round trip for the agent's clock: the runner's clock before and after, and the agent's reading between. */
  readClock(): Promise<ClockRoundTrip> {
    if (this.lost) return Promise.reject(new InfraError(`agent ${this.name} lost: ${this.lost}`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const sentUs = nowMicros();
      this.clockReads.set(id, { resolve: (m) => resolve({ sentUs, receivedUs: nowMicros(), agentUs: m.at, granularityUs: m.granularity }), reject });
      this.lines.write({ type: 'clock', id });
    });
  }

  onExit(l: (worker: string, code: number | null, signal: string | null) => void): void {
    this.exitListeners.add(l);
  }

  onLost(l: (reason: string) => void): void {
    this.lostListeners.add(l);
    if (this.lost) l(this.lost);
  }

  /** The run is over: the agent stops what is left and forgets it. */
  async bye(): Promise<void> {
    clearInterval(this.timer);
    this.lost ??= 'the run ended';
    this.lines.write({ type: 'bye' });
    await this.lines.end();
  }
}
