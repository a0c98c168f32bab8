/**
 * Worker processes, and the idle ones kept for another run. Starting a worker (node, tsx, the
 * worker's modules) costs about half a second of CPU; a test process makes dozens of short
 * memory-broker runs of three or four workers each. A worker whose run ended and left nothing
 * alive (open-handles.ts) reports `idle` and waits here for the next WorkerHandle of the same
 * start settings (node flags, environment, working directory) in this process.
 *
 * Reused only for runs of an in-process broker (the memory broker, a test double): a real
 * broker's client library can hold what the check cannot see (native threads, connection
 * pools). Never reused: a worker a fault signalled or killed, one started with
 * CONVOY_WORKER_NODE_ARGS (a profile covers one run), and any when CONVOY_WORKER_REUSE=0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { closeSync, openSync } from 'node:fs';
import { beforeHarnessExit, ownProcessGroup } from '../runtime/cleanup.ts';
import { OWNER_ENV, ensureReaper, ownerTag, watchGroup } from '../runtime/reaper.ts';
import { moduleProcessArgs } from '../module-ext.ts';
import { RUNNER_FD } from './message-names.ts';
import { WorkerChannel } from './worker-channel.ts';

/** The worker's module: compiled, or its source through tsx's ES-module loader (module-ext.ts). */
const WORKER_ARGS = moduleProcessArgs('harness/roles/main');
const WORKER_MAIN = WORKER_ARGS.at(-1)!;
const WORKER_LOADER = WORKER_ARGS.slice(0, -1);
/** Idle workers kept at most, and for how long (a suite's long real-broker runs need none). */
const MAX_IDLE = 8;
const IDLE_MS = 60_000;

/** Whether a worker of an in-process broker's run may be reused (see above). */
export function reuseAllowed(inProcessBroker: boolean): boolean {
  return inProcessBroker && !process.env.CONVOY_WORKER_NODE_ARGS && process.env.CONVOY_WORKER_REUSE !== '0';
}

/** What a worker process inherits at its start: only workers started alike are interchangeable. */
function startKey(execArgv: string[], env: NodeJS.ProcessEnv): string {
  return JSON.stringify([process.cwd(), execArgv, env]);
}

/** A worker process and the runner's end of its stream. */
export interface WorkerProcess {
  child: ChildProcess;
  channel: WorkerChannel;
}

interface Idle extends WorkerProcess {
  key: string;
  timer: NodeJS.Timeout;
}

const idle: Idle[] = [];

/**
 * A worker process for one run: an idle one started alike when `reusable` and one is waiting,
 * else a new one in its own process group (so a kill -9 fault and the final clean-up reach it
 * and anything it started), watched by the reaper. Its stream to the runner is a pipe on its
 * file descriptor 3 (docs/worker-protocol.md: the process's own, so nothing to name or clean
 * up, and no other process can connect to it). A reusable worker's output comes through pipes
 * (the handle writes it to the run's log file); any other's goes to `logFile` directly.
 */
export function workerProcess(name: string, logFile: string, reusable: boolean): WorkerProcess & { key: string; reused: boolean } {
  ensureReaper();
  const env = { ...process.env, [OWNER_ENV]: ownerTag() };
  const execArgv = workerExecArgv();
  const key = startKey(execArgv, env);
  if (reusable) {
    const i = idle.findIndex((w) => w.key === key && live(w));
    if (i >= 0) {
      const [w] = idle.splice(i, 1);
      clearTimeout(w!.timer);
      holdOpen(w!, true);
      return { child: w!.child, channel: w!.channel, key, reused: true };
    }
  }
  const out = reusable ? undefined : openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawnWorker(name, reusable ? 'pipe' : out!, { env, execArgv });
  } finally {
    if (out !== undefined) closeSync(out);
  }
  child.once('exit', () => {
    const i = idle.findIndex((w) => w.child === child);
    if (i >= 0) clearTimeout(idle.splice(i, 1)[0]!.timer);
  });
  return { child, channel: new WorkerChannel(child.stdio[RUNNER_FD] as Duplex), key, reused: false };
}

/**
 * Starts a worker process (harness/roles/main) in its own process group, so a kill -9 fault and
 * the final clean-up reach it and anything it started, watched by the reaper; its stream is a
 * pipe on its descriptor RUNNER_FD. `output` takes its stdout and stderr: a file descriptor, or
 * pipes. The runner's pool and a convoy agent (harness/agent/) start workers alike.
 */
export function spawnWorker(
  name: string,
  output: number | 'pipe',
  options: { env?: NodeJS.ProcessEnv; execArgv?: string[]; cwd?: string } = {},
): ChildProcess {
  ensureReaper();
  const env = options.env ?? { ...process.env, [OWNER_ENV]: ownerTag() };
  const execArgv = options.execArgv ?? workerExecArgv();
  const child = spawn(process.execPath, [...execArgv, WORKER_MAIN], { env, cwd: options.cwd, stdio: ['ignore', output, output, 'pipe'], detached: true });
  const releaseGroup = child.pid ? ownProcessGroup(child.pid) : () => {};
  const unwatch = child.pid ? watchGroup(child.pid, `worker ${name}`) : () => {};
  child.once('exit', () => {
    releaseGroup();
    unwatch();
  });
  return child;
}

/** The worker's node flags: its loader, and CONVOY_WORKER_NODE_ARGS (e.g. "--cpu-prof" to profile). */
function workerExecArgv(): string[] {
  return [...WORKER_LOADER, ...(process.env.CONVOY_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean)];
}

/**
 * Keeps an idle worker for the next run started alike (`key`); one that cannot or must not be
 * kept (no key, the pool is full, or it is gone) is told to go: it exits when its channel
 * closes (main.ts).
 */
export function keepIdle(w: WorkerProcess, key: string | undefined): void {
  const { child } = w;
  if (key === undefined || !live(w) || idle.length >= MAX_IDLE) {
    letGo(w);
    return;
  }
  const timer = setTimeout(() => {
    const i = idle.findIndex((x) => x.child === child);
    if (i >= 0) idle.splice(i, 1);
    letGo(w);
  }, IDLE_MS);
  timer.unref();
  // An idle worker must not keep the runner alive: when nothing else does, or the CLI's command
  // is done, they are let go and waited for (their exit is the runner's, CPU accounts included);
  // a runner that exits otherwise kills them in its clean-up (runtime/cleanup.ts).
  holdOpen(w, false);
  idle.push({ ...w, key, timer });
  if (!process.listeners('beforeExit').includes(onBeforeExit)) process.once('beforeExit', onBeforeExit);
  beforeHarnessExit(letAllGo);
}

const onBeforeExit = () => void letAllGo();

/** Lets every idle worker go and waits (at most 5 s) until they have exited. */
function letAllGo(): Promise<void> {
  const going = idle.splice(0).map((w) => {
    clearTimeout(w.timer);
    holdOpen(w, true);
    const gone = new Promise<void>((resolve) => {
      if (!live(w)) return resolve();
      const t = setTimeout(resolve, 5_000);
      t.unref();
      w.child.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
    });
    letGo(w);
    return gone;
  });
  return Promise.all(going).then(() => {});
}

/** The pids of the idle workers now (tests). */
export function idleWorkers(): number[] {
  return idle.map((w) => w.child.pid!);
}

/** Ends the worker's stream: it exits when it reads the end (main.ts). */
function letGo(w: WorkerProcess): void {
  w.channel.end();
}

function live(w: WorkerProcess): boolean {
  return w.child.exitCode === null && w.child.signalCode === null && w.channel.open;
}

/** Whether the worker's process, stream and pipes keep the runner's event loop alive. */
function holdOpen({ child, channel }: WorkerProcess, hold: boolean): void {
  for (const h of [child, channel.stream, child.stdout, child.stderr] as ({ ref?(): void; unref?(): void } | null | undefined)[]) {
    if (hold) h?.ref?.();
    else h?.unref?.();
  }
}
