import { execFileSync } from 'node:child_process';
import { InfraError } from '../errors.ts';

/** Runs a command and returns its stdout; on failure an InfraError with the output's tail. */
export function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; what: string; timeoutMs?: number }): string {
  try {
    return execFileSync(cmd, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: opts.timeoutMs ?? 600_000,
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    const tail = `${e.stdout ?? ''}\n${e.stderr ?? ''}`.trim().split('\n').slice(-15);
    throw new InfraError(`${opts.what} failed: ${cmd} ${args.join(' ')}`, tail, { cause: err });
  }
}
