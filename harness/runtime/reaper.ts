/**
 * The harness's side of the reaper (reaper-main.ts): started on first use, detached in its own
 * session so a signal to the harness's group cannot take it down too, connected by a pipe the
 * harness never closes on purpose. Every process convoy starts is watched from its spawn; it
 * is forgotten when it exits, and spared when it is recorded as a `convoy brokers up` broker.
 * Also tags the environment of everything the harness starts with CONVOY_OWNER, so
 * `convoy clean` can find what a dead harness left even without a ledger.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { Socket } from 'node:net';
import { cacheDir } from './cache.ts';
import { startTime } from './proc.ts';
import { moduleProcessArgs } from '../module-ext.ts';

/** Set on every process the harness starts: `<harness pid>:<harness start time>`. */
export const OWNER_ENV = 'CONVOY_OWNER';

let pipe: Writable | undefined;
let reaperPid: number | undefined;

export function ownerTag(): string {
  return `${process.pid}:${startTime(process.pid) ?? 0}`;
}

/** The ledgers of live and dead reapers (`convoy clean` reads them). */
export function reaperDir(): string {
  return cacheDir('reaper');
}

function connection(): Writable {
  if (pipe) return pipe;
  process.env[OWNER_ENV] = ownerTag();
  const ledger = join(reaperDir(), `${process.pid}-${startTime(process.pid) ?? 0}.json`);
  const child = spawn(process.execPath, [...moduleProcessArgs('harness/runtime/reaper-main'), ledger], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  child.unref();
  // The pipe must not keep the harness alive, and a dead reaper must not crash it (EPIPE).
  (child.stdin as unknown as Socket).unref();
  child.stdin!.on('error', () => {});
  reaperPid = child.pid;
  pipe = child.stdin!;
  send({ op: 'owner', pid: process.pid, start: startTime(process.pid) ?? 0 });
  return pipe;
}

function send(m: Record<string, unknown>): void {
  connection().write(JSON.stringify(m) + '\n');
}

/** Call before starting processes, so what they inherit carries the owner tag. */
export function ensureReaper(): void {
  connection();
}

/** The reaper's pid once started (tests look at it). */
export function reaperProcess(): number | undefined {
  return reaperPid;
}

/**
 * Watches a process group (its leader's pid), and a scratch folder of its own to remove once
 * the reaper stopped it; returns the function to call once it has exited.
 */
export function watchGroup(pid: number, name: string, remove?: string): () => void {
  const start = startTime(pid);
  // Gone already: nothing to watch.
  if (start === undefined) return () => {};
  send({ op: 'watch', pid, start, name, ...(remove ? { remove } : {}) });
  let done = false;
  return () => {
    if (done) return;
    done = true;
    send({ op: 'forget', pid });
  };
}

/** Leaves these groups running when the harness exits (recorded `brokers up` brokers). */
export function spareGroups(pids: number[]): void {
  if (!pipe) return;
  for (const pid of pids) if (pid > 0) send({ op: 'spare', pid });
}
