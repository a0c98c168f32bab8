import { execFileSync } from 'node:child_process';
import { InfraError } from '../errors.ts';

/** What to check when a download from a registry fails. */
export const MAVEN_HINT = 'is Maven Central reachable? a proxy or mirror goes in ~/.m2/settings.xml';
export const GO_PROXY_HINT = 'is the Go module proxy reachable? see GOPROXY';

/** Runs a command and returns its stdout; on failure an InfraError with the output's tail. */
export function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; what: string; timeoutMs?: number; hint?: string }): string {
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
    const command = `${cmd} ${args.join(' ')}`;
    throw new InfraError(`${opts.what} failed${opts.hint ? ` (${opts.hint})` : ''}; see the lines below`, [...tail, `command: ${command.length > 200 ? `${command.slice(0, 200)}...` : command}`], { cause: err });
  }
}
