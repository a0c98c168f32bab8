/**
 * A consumer under test (consumers.service, docs/consumer-under-test.md): this worker process
 * stands for consumer cN of the run, but the consuming is done by the team's own service, which
 * it starts as its child. The child runs in this worker's process group, so what a fault does
 * to "the consumer" (freeze: SIGSTOP of the group; kill-consumer: SIGKILL of it) happens to the
 * service too, and the reaper that watches the worker watches it with it. The worker reads the
 * service's reports (socket or file), turns them into handling events in its history
 * (harness/service/ingest.ts) and reports its stats to the runner as any consumer does. A
 * service that exits on its own while the run goes on ends the worker (the run is unknown),
 * with its last log lines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, openSync, readSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { dirname, join } from 'node:path';
import { loadBroker } from '../../broker/registry.ts';
import { nowMicros, sleep } from '../../clock.ts';
import { InfraError, InputError } from '../../errors.ts';
import { WorkerFaults } from '../../faults/worker-hooks.ts';
import { HistoryWriter } from '../../history/writer.ts';
import { ReportIngest, reportProblems } from '../../service/ingest.ts';
import { ENV } from '../../service/report.ts';
import { serviceEnv } from '../../service/env.ts';
import { cpuMeter } from '../../workers/cpu-meter.ts';
import { loopLagMeter } from '../../workers/loop-lag.ts';
import { signalOwnGroup } from '../../workers/own-group.ts';
import { emptyStats, type FromWorker, type Inbox, type WorkerInit } from '../../workers/protocol.ts';

/** The service's last log lines kept for a failure's message. */
const LAST_LINES = 15;
/** How long the service has to exit after SIGTERM when the run stops it. */
const STOP_GRACE_MS = 5_000;

export async function runService(init: WorkerInit, inbox: Inbox, send: (m: FromWorker) => void): Promise<void> {
  const spec = init.scenario.consumers.service!;
  const log = (line: string) => send({ type: "log", line });
  const broker = await loadBroker(init.brokerKind);
  if (!broker.service) throw new InputError(`consumers.service: broker ${init.brokerKind} cannot run a consumer under test`);
  const link = broker.service;
  const runDir = dirname(dirname(init.historyFile));
  const history = new HistoryWriter(init.historyFile);
  const stats = emptyStats();
  const ingest = new ReportIngest({ runId: init.names.runId, consumer: init.id, lane: (l) => link.lane(l), now: nowMicros, write: (e) => history.write(e) });
  let resolveExited!: (p: Promise<string>) => void;
  const exited = new Promise<string>((r) => (resolveExited = (p) => void p.then(r)));
  let stopping = false;
  let crashing = false;
  let child: ChildProcess | undefined;
  let channel: Channel | undefined;
  // kill-consumer: the service dies with -9; its reports up to then are read and written, then this process ends the same way.
  const crash = () => {
    if (crashing) return;
    crashing = true;
    child?.kill('SIGKILL');
    void exited.then(async () => {
      await channel?.close();
      ingest.close();
      history.flush();
      signalOwnGroup('SIGKILL');
    });
  };
  const faults = WorkerFaults.consumer({ id: init.id, log, flushHistory: () => history.flush(), crash }, undefined, init.scenario.faults.map((f) => f.kind));

  let wakeStop: (() => void) | undefined;
  inbox((m) => {
    faults.receive(m);
    if (m.type === 'stop') {
      stopping = true;
      wakeStop?.();
    }
  });

  // The report channel, then the service.
  const dir = mkdtempSync(join(tmpdir(), 'convoy-service-'));
  channel = spec.report === 'file' ? fileChannel(join(runDir, `${init.id}.reports.jsonl`)) : await socketChannel(join(dir, 'report.sock'));
  const lastLines: string[] = [];
  const logFile = createWriteStream(join(runDir, `${init.id}.service.log`), { flags: 'a' });
  const remember = (chunk: Buffer) => {
    logFile.write(chunk);
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      lastLines.push(line);
      if (lastLines.length > LAST_LINES) lastLines.shift();
    }
  };
  const env = { ...serviceEnv({ link, endpoint: init.endpoint, settings: init.settings, names: init.names, spec, runDir, log }), [ENV.process]: init.id, [channel.env]: channel.path };
  const ready = new Promise<void>((resolve) => {
    channel.onLine((line) => {
      if (ingest.line(line) === 'ready') resolve();
      if (ingest.applied > stats.applied) afterApply();
      stats.applied = ingest.applied;
      stats.errors = ingest.errors;
    });
  });
  // A fault's effect after an apply (kill-consumer when: after-apply): the service's effect is reported done.
  const afterApply = () => {
    for (const e of faults.effects()) e.afterApply?.();
  };

  const [program, ...args] = spec.command;
  child = spawn(program!, args, { cwd: spec.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', remember);
  child.stderr!.on('data', remember);
  const started = child;
  // This worker exits (its runner went away, a fatal error): the service never outlives it.
  process.once('exit', () => {
    if (started.exitCode === null && started.signalCode === null) started.kill('SIGKILL');
  });
  resolveExited(
    new Promise<string>((resolve) => {
      started.on('error', (e) => resolve(`could not start ${program}: ${e.message}`));
      started.on('exit', (code, signal) => resolve(`exited (${signal ?? `code ${code}`})`));
    }),
  );
  const lastLog = () => (lastLines.length ? lastLines.map((l) => `  ${l}`) : ['  (it wrote nothing)']);
  void exited.then((how) => {
    if (!stopping && !crashing) {
      history.flush();
      // Thrown outside the role's awaits: the worker's uncaughtException handler reports it (fatal).
      setImmediate(() => {
        throw new InfraError(`the service's process ${init.id} ${how} while the run went on; its last log lines in ${init.id}.service.log`, lastLog());
      });
    }
  });

  const readyBound = sleep(spec.readyTimeoutMs).then(() => 'timeout' as const);
  const first = await Promise.race([ready.then(() => 'ready' as const), readyBound, exited.then(() => 'exited' as const)]);
  if (first !== 'ready') {
    stopping = true;
    await stop(started);
    await channel.close();
    throw new InfraError(`${init.id}: the service ${first === 'timeout' ? `did not report ready within ${spec.readyTimeoutMs} ms` : await exited} (its reports go to ${channel.env}); its last log lines`, lastLog());
  }
  log(`service ready (pid ${started.pid})`);
  send({ type: 'ready', detail: { servicePid: started.pid } });

  const lag = loopLagMeter();
  const cpu = cpuMeter();
  const timer = setInterval(() => {
    stats.inFlight = ingest.inFlight;
    send({ type: 'stats', stats: { ...stats, loopLagMs: lag(), cpuPercent: cpu() } });
  }, 500);

  while (!stopping) await new Promise<void>((r) => (wakeStop = r));
  clearInterval(timer);
  faults.endAll();
  await stop(started);
  await channel.close();
  ingest.close();
  history.close();
  logFile.end();
  rmSync(dir, { recursive: true, force: true });
  stats.inFlight = 0;
  const service = { started: ingest.counts.started, problems: reportProblems(init.id, ingest.counts), lastLog: lastLog().map((l) => l.trim()) };
  send({ type: 'stopped', stats: { ...stats, service } });
}

/** SIGTERM, then SIGKILL after the grace; a stopped (frozen) process is resumed first. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGCONT');
  child.kill('SIGTERM');
  if ((await Promise.race([gone.then(() => true), sleep(STOP_GRACE_MS).then(() => false)])) === false) {
    child.kill('SIGKILL');
    await gone;
  }
}

interface Channel {
  env: string;
  path: string;
  onLine(handler: (line: string) => void): void;
  /** Reads what is left, then stops. */
  close(): Promise<void>;
}

/** Lines split from chunks, the last partial line kept for the next. */
function lineSplitter(handler: () => ((line: string) => void) | undefined) {
  let rest = '';
  return {
    push(chunk: string) {
      rest += chunk;
      let i: number;
      while ((i = rest.indexOf('\n')) >= 0) {
        const line = rest.slice(0, i);
        rest = rest.slice(i + 1);
        handler()?.(line);
      }
    },
    end() {
      if (rest) handler()?.(rest);
      rest = '';
    },
  };
}

/** A Unix socket any number of the service's connections write to. */
async function socketChannel(path: string): Promise<Channel> {
  let handler: ((line: string) => void) | undefined;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    const lines = lineSplitter(() => handler);
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => lines.push(d));
    socket.on('end', () => lines.end());
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, () => resolve()));
  return {
    env: ENV.socket,
    path,
    onLine: (h) => (handler = h),
    async close() {
      // The service has exited: its connections end once what they still hold is read.
      const deadline = Date.now() + 1_000;
      while (sockets.size > 0 && Date.now() < deadline) await sleep(20);
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/** A file the service appends to, read as it grows (every 100 ms) and to its end at the close. */
function fileChannel(path: string): Channel {
  writeFileSync(path, '', { flag: 'a' });
  let handler: ((line: string) => void) | undefined;
  const lines = lineSplitter(() => handler);
  const fd = openSync(path, 'r');
  let pos = 0;
  const buf = Buffer.alloc(1 << 16);
  // A character split between two reads is joined, not garbled.
  const text = new StringDecoder('utf8');
  const read = () => {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, pos);
      if (n <= 0) return;
      pos += n;
      lines.push(text.write(buf.subarray(0, n)));
    }
  };
  const timer = setInterval(read, 100);
  return {
    env: ENV.file,
    path,
    onLine: (h) => (handler = h),
    async close() {
      clearInterval(timer);
      read();
      lines.end();
      closeSync(fd);
    },
  };
}
