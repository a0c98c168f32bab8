import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CONVOY = join(ROOT, 'bin', 'convoy.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the convoy CLI as a user would, bounded in time. */
export function convoy(args: string[], opts: { timeoutMs?: number; env?: Record<string, string>; onStderr?: (chunk: string, child: ReturnType<typeof spawn>) => void } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CONVOY, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: 'true', ...opts.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      opts.onStderr?.(String(d), child);
    });
    const t = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 240_000);
    child.on('exit', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The single run folder created under a results folder. */
export function onlyRunDir(results: string): string {
  const dirs = readdirSync(results);
  if (dirs.length !== 1) throw new Error(`expected one run folder in ${results}, found ${dirs.join(', ')}`);
  return join(results, dirs[0]);
}

export function readHistory(runDir: string): Record<string, unknown>[] {
  return readFileSync(join(runDir, 'history.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Pids of live processes whose command line mentions `needle` (a run folder). */
export function processesMentioning(needle: string): { pid: number; state: string; cmd: string }[] {
  const out: { pid: number; state: string; cmd: string }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (!cmd.includes(needle)) continue;
      const state = readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]?.[0] ?? '?';
      if (state !== 'Z') out.push({ pid: Number(name), state, cmd });
    } catch {
      /* gone */
    }
  }
  return out;
}
