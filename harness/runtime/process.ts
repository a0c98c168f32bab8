import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { InfraError } from '../errors.ts';
import { sleep } from '../clock.ts';
import { ownProcessGroup } from './cleanup.ts';
import { OWNER_ENV, ensureReaper, ownerTag, watchGroup } from './reaper.ts';

export interface ProcessSpec {
  /** Short name for messages: "kafka node 1". */
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** stdout and stderr are appended here. */
  logFile: string;
  /** Written with the pid, so `convoy brokers down` can find a process after a harness crash. */
  pidFile?: string;
  /** Leave running when the harness exits (`convoy brokers up`). */
  persistent?: boolean;
  /** Run as this user (the harness is root; PostgreSQL refuses root). */
  user?: { uid: number; gid: number };
  /** A scratch folder of its own (a database's data): the reaper removes it when it stops the process. */
  scratchDir?: string;
}

/** True when a process with this pid exists (and is not a zombie we can see). */
export function pidAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.split(') ')[1]?.[0] !== 'Z';
  } catch {
    return true;
  }
}

/** Last lines of a log file, for error messages. */
export function tailFile(path: string, lines = 20): string[] {
  try {
    const text = readFileSync(path, 'utf8');
    return text.trimEnd().split('\n').slice(-lines);
  } catch {
    return [];
  }
}

/**
 * A local process convoy started: its own process group (so stopping it stops its children),
 * output to a log file, an optional pid file, and health waiting that fails fast with the
 * log's tail when the process dies during start-up.
 */
export class LocalProcess {
  private exited = false;
  private exitCode: number | null = null;
  private exitWaiters: (() => void)[] = [];
  private releaseGroup: () => void = () => {};
  private unwatch: () => void = () => {};

  private constructor(readonly spec: ProcessSpec, private readonly child: ChildProcess) {
    child.on('exit', (code, signal) => {
      this.exited = true;
      this.exitCode = code ?? (signal ? 128 : null);
      this.releaseGroup();
      this.unwatch();
      this.exitWaiters.splice(0).forEach((w) => w());
    });
    if (child.pid && !spec.persistent) this.releaseGroup = ownProcessGroup(child.pid);
    // Persistent ones too: until recorded as a `brokers up` broker, they die with the harness.
    if (child.pid) this.unwatch = watchGroup(child.pid, spec.name, spec.scratchDir);
  }

  static start(spec: ProcessSpec): LocalProcess {
    ensureReaper();
    const out = openSync(spec.logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(spec.command, spec.args, {
        cwd: spec.cwd,
        env: { ...(spec.env ?? process.env), [OWNER_ENV]: ownerTag() },
        detached: true, // own process group
        ...(spec.user ?? {}),
        stdio: ['ignore', out, out],
      });
    } finally {
      closeSync(out);
    }
    if (!child.pid) throw new InfraError(`${spec.name} could not be started: ${spec.command}`);
    if (spec.persistent) child.unref();
    if (spec.pidFile) writeFileSync(spec.pidFile, String(child.pid));
    return new LocalProcess(spec, child);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return !this.exited;
  }

  tail(lines = 20): string[] {
    return tailFile(this.spec.logFile, lines);
  }

  /** Polls `check` until it returns true; fails with the log tail on exit or timeout. */
  async waitHealthy(check: () => Promise<boolean>, timeoutMs: number, intervalMs = 250): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exited) {
        throw new InfraError(`${this.spec.name} exited during start-up (code ${this.exitCode}); last log lines:`, this.tail());
      }
      try {
        if (await check()) return;
      } catch {
        /* not ready yet */
      }
      await sleep(intervalMs);
    }
    const lines = this.tail();
    await this.stop('SIGKILL');
    throw new InfraError(`${this.spec.name} did not become healthy within ${Math.round(timeoutMs / 1000)} s; last log lines:`, lines);
  }

  waitExit(timeoutMs: number): Promise<boolean> {
    if (this.exited) return Promise.resolve(true);
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(false), timeoutMs);
      this.exitWaiters.push(() => {
        clearTimeout(t);
        resolve(true);
      });
    });
  }

  /** Signals the whole process group; escalates to SIGKILL after the grace period. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000): Promise<void> {
    if (!this.exited) {
      signalGroup(this.child.pid, signal);
      if (!(await this.waitExit(graceMs))) {
        signalGroup(this.child.pid, 'SIGKILL');
        await this.waitExit(5_000);
      }
    }
    if (this.spec.pidFile && existsSync(this.spec.pidFile)) rmSync(this.spec.pidFile, { force: true });
  }
}

export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* gone */
    }
  }
}

/** Stops a process known only by a pid file (a broker left by `brokers up` or a crash). */
export async function stopByPidFile(pidFile: string, graceMs = 15_000): Promise<boolean> {
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (pidAlive(pid)) {
    signalGroup(pid, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (pidAlive(pid) && Date.now() < deadline) await sleep(100);
    if (pidAlive(pid)) signalGroup(pid, 'SIGKILL');
  }
  rmSync(pidFile, { force: true });
  return true;
}

/** VmRSS / VmHWM (peak) of a process, in bytes; undefined when it is gone. */
export function processMemory(pid: number | undefined): { rssBytes: number; peakRssBytes: number } | undefined {
  if (!pid) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? 0);
    return { rssBytes: kb('VmRSS') * 1024, peakRssBytes: kb('VmHWM') * 1024 };
  } catch {
    return undefined;
  }
}
