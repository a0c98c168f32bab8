/**
 * A worker placed on a convoy agent, as the runner's WorkerHandle sees it (workers/handle.ts
 * WorkerPort). Made at once: the handle's channel is one end of an in-memory pair, whose other
 * end is joined to the worker's connection once the agent has started the process, so what the
 * handle sends first waits, as it does for a local worker's hello. The files the worker writes
 * there (its history, its log) are copied here as they grow, by byte offset, so a connection
 * opened again never copies a line twice; what was copied stays when the agent is lost.
 */
import { appendFileSync } from 'node:fs';
import { basename } from 'node:path';
import { duplexPair } from 'node:stream';
import { WorkerChannel } from '../workers/worker-channel.ts';
import type { WorkerPort } from '../workers/handle.ts';
import type { AgentLink } from './client.ts';
import { AGENT_SIGNALS, type AgentSignal } from './messages.ts';

/** A file the worker writes on the agent (relative to the run's folder there), and its copy here. */
export interface CopiedFile {
  remote: string;
  local: string;
  /** Copied a whole line at a time (a history: its reader parses lines); a log is copied as it comes. */
  wholeLines: boolean;
}

const COPY_MS = 500;

export function remoteWorker(link: AgentLink, id: string, files: CopiedFile[], log: (line: string) => void): WorkerPort & { copied(): Promise<void> } {
  const [near, far] = duplexPair();
  const channel = new WorkerChannel(near);
  let pid: number | undefined;
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exitListeners = new Set<(code: number | null, signal: NodeJS.Signals | null) => void>();
  const exited = (code: number | null, signal: NodeJS.Signals | null) => {
    if (exit) return;
    exit = { code, signal };
    far.destroy();
    for (const l of exitListeners) l(code, signal);
  };
  link.onExit((worker, code, signal) => {
    if (worker === id) void copyAll().finally(() => exited(code, signal as NodeJS.Signals | null));
  });
  link.onLost((reason) => {
    log(`${id}: its agent ${link.name} is lost: ${reason}`);
    exited(null, 'SIGKILL');
  });

  // The files, copied from where the last copy stopped; a line cut at the end waits for the rest.
  const offsets = new Map(files.map((f) => [f.remote, 0]));
  let copying: Promise<void> = Promise.resolve();
  const copyAll = () => (copying = copying.then(async () => {
    for (const f of files) {
      for (;;) {
        const from = offsets.get(f.remote)!;
        const bytes = await link.read(f.remote, from).catch(() => Buffer.alloc(0));
        const whole = f.wholeLines ? bytes.lastIndexOf(0x0a) + 1 : bytes.length;
        if (whole <= 0) break;
        appendFileSync(f.local, bytes.subarray(0, whole));
        offsets.set(f.remote, from + whole);
        if (bytes.length < 1024 * 1024) break;
      }
    }
  }));
  const timer = setInterval(() => void copyAll(), COPY_MS);
  timer.unref();
  exitListeners.add(() => clearInterval(timer));

  void (async () => {
    try {
      pid = await link.spawn(id);
      const socket = await link.attach(id);
      socket.pipe(far);
      far.pipe(socket);
      socket.on('error', () => far.destroy());
      socket.on('close', () => far.end());
      far.on('error', () => socket.destroy());
    } catch (err) {
      log(`${id}: ${(err as Error).message}`);
      exited(null, null);
    }
  })();

  return {
    channel,
    where: link.name,
    pid: () => pid,
    onExit: (cb) => {
      exitListeners.add(cb);
      if (exit) cb(exit.code, exit.signal);
    },
    offExit: (cb) => void exitListeners.delete(cb),
    signal: (sig) => {
      if (AGENT_SIGNALS.includes(sig as AgentSignal)) link.signal(id, sig as AgentSignal);
      else log(`${id}: ${sig} cannot be sent through an agent; only ${AGENT_SIGNALS.join(', ')}`);
    },
    copied: () => copyAll(),
  };
}

/** The name a worker's file has in the run's folder on its agent. */
export const remoteName = (localPath: string): string => basename(localPath);
