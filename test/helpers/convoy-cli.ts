/**
 * `convoy <args>` as a user runs it, in a child process: its exit code, what it said, how long
 * it took. For tests of whole commands (the external runtime's connection files, secrets).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Ran {
  code: number | null;
  out: string;
  err: string;
  ms: number;
}

/** `env` is added to this process's environment; `onStart` gets the child's pid. */
export function runConvoy(args: string[], env: Record<string, string>, onStart?: (pid: number) => void): Promise<Ran> {
  const t = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/convoy.js'), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    onStart?.(child.pid!);
    child.on('exit', (code) => resolve({ code, out, err, ms: Date.now() - t }));
  });
}

/** What a run said, for an assertion's message. */
export const said = (r: Ran) => `exit ${r.code}\n${r.out}\n${r.err}`;
