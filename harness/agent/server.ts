/**
 * `convoy agent`: a long-running process on a load host that starts a run's workers for a runner
 * elsewhere (docs/agents.md). Every connection starts with the runner's hello: the shared token
 * and both versions are checked first. A control connection then asks for workers (spawn),
 * signals them (kill and freeze faults act on the process the agent owns), reads the files they
 * write in the run's folder (their history lines, as they grow, from an offset), and ends the run
 * (bye). A worker connection, once welcomed, is the named worker's stream, byte for byte: the
 * worker protocol runs end to end between the runner and the worker.
 *
 * A runner unheard for `runnerTimeoutMs` (its heartbeats stop: it died, or the network is cut
 * longer than that) is gone: its run's workers are killed, so nothing is left running. A shorter
 * cut loses nothing (TCP holds the bytes), and a control connection opened again takes the run
 * over with the exits it missed.
 */
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { createHash, timingSafeEqual } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { cpus, hostname } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { CLOCK_READ_GRANULARITY_US, TEST_CLOCK_ENV, activeTestClock, nowMicros } from '../clock.ts';
import { convoyVersion } from '../convoy-version.ts';
import { LineChannel } from '../line-protocol/channel.ts';
import { messageCheck } from '../line-protocol/check.ts';
import { RUNNER_FD } from '../workers/message-names.ts';
import { spawnWorker } from '../workers/pool.ts';
import { readFirstLine } from './first-line.ts';
import { AGENT_PROTOCOL_VERSION, TO_AGENT, type AgentHello, type FromAgent, type ToAgent } from './messages.ts';

export interface AgentOptions {
  /** Where to listen; port 0 picks one. */
  host: string;
  port: number;
  /** The shared token every runner must present. */
  token: string;
  /** The runs' folders go under it: <workDir>/<runId>/. */
  workDir: string;
  /** PEM certificate and key: TLS instead of plain TCP. */
  tls?: { cert: string; key: string };
  /** A run whose runner is unheard this long is stopped (default 15 s). */
  runnerTimeoutMs?: number;
  log?(line: string): void;
}

export interface RunningAgent {
  host: string;
  port: number;
  /** Stops listening and every run's workers. */
  close(): Promise<void>;
}

const MAX_HELLO = 64 * 1024;
const HELLO_MS = 10_000;
const READ_MAX = 4 * 1024 * 1024;
const checkToAgent = messageCheck(TO_AGENT);

interface Worker {
  child: ChildProcess;
  stream: Duplex;
  exit?: { code: number | null; signal: string | null };
  attached?: Socket;
}

interface Run {
  id: string;
  dir: string;
  control?: LineChannel<ToAgent, FromAgent>;
  workers: Map<string, Worker>;
  heardAt: number;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

export async function startAgent(options: AgentOptions): Promise<RunningAgent> {
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const timeoutMs = options.runnerTimeoutMs ?? 15_000;
  const token = digest(options.token);
  const runs = new Map<string, Run>();
  const sockets = new Set<Socket>();
  // A test clock (harness/clock.ts): the workers started here stamp with the agent's own.
  const testClock = activeTestClock();
  if (testClock) {
    process.env[TEST_CLOCK_ENV.sinceUs] = String(testClock.sinceUs);
    log(`test clock: ${testClock.offsetUs / 1000} ms off, drifting ${testClock.driftPpm} ppm (${TEST_CLOCK_ENV.offsetMs}, ${TEST_CLOCK_ENV.driftPpm}); for tests only`);
  }

  const stopRun = (run: Run, why: string) => {
    if (runs.get(run.id) !== run) return;
    runs.delete(run.id);
    log(`run ${run.id}: ${why}; stopping its ${run.workers.size} worker(s)`);
    for (const w of run.workers.values()) {
      if (!w.exit && w.child.pid) signalGroup(w.child.pid, 'SIGKILL');
      w.attached?.destroy();
    }
    run.control?.destroy();
    rmSync(run.dir, { recursive: true, force: true });
  };

  const watchdog = setInterval(() => {
    for (const run of runs.values()) if (Date.now() - run.heardAt > timeoutMs) stopRun(run, `its runner was unheard for ${Math.round(timeoutMs / 1000)} s`);
  }, Math.min(1_000, timeoutMs / 4));
  watchdog.unref();

  const refuse = (socket: Socket, reason: string) => {
    log(`refused ${socket.remoteAddress}: ${reason}`);
    socket.end(JSON.stringify({ type: 'refused', reason } satisfies FromAgent) + '\n');
  };

  const onConnection = async (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 5_000);
    let hello: AgentHello;
    try {
      const line = await readFirstLine(socket, MAX_HELLO, HELLO_MS);
      const m = JSON.parse(line) as Record<string, unknown>;
      const problem = checkToAgent(m);
      if (problem || m.type !== 'hello') return refuse(socket, `the first line must be a hello: ${problem ?? `it was ${String(m.type)}`}`);
      hello = m as AgentHello;
    } catch (err) {
      return refuse(socket, (err as Error).message);
    }
    if (!timingSafeEqual(digest(hello.token), token)) return refuse(socket, 'wrong token');
    if (hello.protocol !== AGENT_PROTOCOL_VERSION || hello.convoy !== convoyVersion()) {
      return refuse(socket, `the runner speaks agent protocol ${hello.protocol} of convoy ${hello.convoy}; this agent speaks agent protocol ${AGENT_PROTOCOL_VERSION} of convoy ${convoyVersion()}`);
    }
    if (hello.purpose === 'worker') return attachWorker(socket, hello);
    control(socket, hello);
  };

  const attachWorker = (socket: Socket, hello: AgentHello) => {
    const w = hello.worker ? runs.get(hello.runId)?.workers.get(hello.worker) : undefined;
    if (!w) return refuse(socket, `no worker ${hello.worker ?? '(unnamed)'} of run ${hello.runId} here: spawn it first`);
    if (w.attached || w.exit) return refuse(socket, `worker ${hello.worker} of run ${hello.runId} is ${w.exit ? 'gone' : 'already attached'}`);
    w.attached = socket;
    socket.write(JSON.stringify({ type: 'welcome', protocol: AGENT_PROTOCOL_VERSION, convoy: convoyVersion() } satisfies FromAgent) + '\n');
    // From here the connection is the worker's stream. When it breaks, the worker's runner is
    // gone for this worker: its stream ends, and the worker exits as it does locally.
    socket.pipe(w.stream);
    w.stream.pipe(socket);
    socket.resume();
    socket.on('close', () => w.stream.end());
  };

  const control = (socket: Socket, hello: AgentHello) => {
    let run = runs.get(hello.runId);
    if (!run) {
      const dir = join(options.workDir, hello.runId);
      mkdirSync(dir, { recursive: true });
      run = { id: hello.runId, dir, workers: new Map(), heardAt: Date.now() };
      runs.set(run.id, run);
    }
    const r = run;
    r.control?.destroy(); // a control connection opened again takes the run over
    r.heardAt = Date.now();
    const lines: LineChannel<ToAgent, FromAgent> = new LineChannel<ToAgent, FromAgent>(socket, {
      check: checkToAgent,
      onMessage: (m) => {
        r.heardAt = Date.now();
        handle(r, lines, m);
      },
      onMalformed: (problem, line) => {
        log(`run ${r.id}: the runner wrote a malformed line (${problem}): ${line}`);
        lines.destroy();
      },
      onClose: () => {
        if (r.control === lines) r.control = undefined;
      },
    });
    r.control = lines;
    socket.resume();
    lines.write({ type: 'welcome', protocol: AGENT_PROTOCOL_VERSION, convoy: convoyVersion(), agent: { host: hostname(), cores: cpus().length, pid: process.pid, runDir: r.dir } });
    // What the runner missed while it had no control connection.
    for (const [worker, w] of r.workers) if (w.exit) lines.write({ type: 'exited', worker, ...w.exit });
  };

  const handle = (run: Run, lines: LineChannel<ToAgent, FromAgent>, m: ToAgent) => {
    switch (m.type) {
      case 'ping':
        lines.write({ type: 'pong', id: m.id });
        return;
      case 'clock':
        lines.write({ type: 'clock-reading', id: m.id, at: nowMicros(), granularity: CLOCK_READ_GRANULARITY_US });
        return;
      case 'spawn': {
        if (run.workers.has(m.worker)) return void lines.write({ type: 'spawn-failed', worker: m.worker, reason: 'a worker of that name was started already' });
        let child: ChildProcess;
        try {
          const out = openSync(join(run.dir, `${m.worker}.log`), 'a');
          try {
            child = spawnWorker(m.worker, out, { cwd: run.dir });
          } finally {
            closeSync(out);
          }
        } catch (err) {
          return void lines.write({ type: 'spawn-failed', worker: m.worker, reason: (err as Error).message });
        }
        if (!child.pid) return void lines.write({ type: 'spawn-failed', worker: m.worker, reason: 'the process did not start' });
        const w: Worker = { child, stream: child.stdio[RUNNER_FD] as Duplex };
        w.stream.on('error', () => {});
        run.workers.set(m.worker, w);
        child.once('exit', (code, signal) => {
          w.exit = { code, signal };
          w.attached?.end();
          run.control?.write({ type: 'exited', worker: m.worker, code, signal });
        });
        lines.write({ type: 'spawned', worker: m.worker, pid: child.pid });
        return;
      }
      case 'signal': {
        const w = run.workers.get(m.worker);
        if (w?.child.pid && !w.exit) signalGroup(w.child.pid, m.signal);
        return;
      }
      case 'read':
        lines.write(readPart(run.dir, m));
        return;
      case 'bye':
        stopRun(run, 'its runner said bye');
        return;
      case 'hello':
        return;
    }
  };

  const server: Server = options.tls ? createTlsServer({ cert: options.tls.cert, key: options.tls.key }, (s) => void onConnection(s)) : createTcpServer((s) => void onConnection(s));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    host: options.host,
    port,
    close: async () => {
      clearInterval(watchdog);
      for (const run of [...runs.values()]) stopRun(run, 'the agent is stopping');
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* gone */
  }
}

/** A part of a file in the run's folder; never a path outside it. */
function readPart(dir: string, m: Extract<ToAgent, { type: 'read' }>): FromAgent {
  const path = resolve(dir, m.file);
  const rel = relative(dir, path);
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) return { type: 'data', id: m.id, offset: m.offset, bytes: '', error: `${m.file} is outside the run's folder` };
  let fd: number;
  try {
    if (!statSync(path).isFile()) return { type: 'data', id: m.id, offset: m.offset, bytes: '', error: `${m.file} is not a file` };
    fd = openSync(path, 'r');
  } catch {
    return { type: 'data', id: m.id, offset: m.offset, bytes: '' }; // not written yet
  }
  try {
    const buf = Buffer.alloc(Math.min(m.max ?? READ_MAX, READ_MAX));
    const n = readSync(fd, buf, 0, buf.length, m.offset);
    return { type: 'data', id: m.id, offset: m.offset, bytes: buf.subarray(0, n).toString('base64') };
  } finally {
    closeSync(fd);
  }
}
