import { execFileSync, spawnSync } from 'node:child_process';
import { InfraError } from '../errors.ts';

/** How to get each tool convoy may need, for the one-line error when it is missing. */
const HOW_TO_GET: Record<string, string> = {
  java: 'install a Java 17+ runtime (Debian: apt-get install -y openjdk-17-jre-headless)',
  mvn: 'install Maven (Debian: apt-get install -y maven)',
  go: 'install Go 1.22+ (https://go.dev/dl, or Debian: apt-get install -y golang)',
  'rabbitmq-server': 'install RabbitMQ (Debian: apt-get install -y rabbitmq-server), or run ./convoy setup',
  chromium: 'install Chromium (Debian: apt-get install -y chromium)',
};

export function which(cmd: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  const out = r.stdout.trim();
  return r.status === 0 && out ? out : undefined;
}

/** Throws an InfraError with one clear line when a command is missing. */
export function requireCommand(cmd: string, purpose: string): string {
  const path = which(cmd);
  if (!path) {
    throw new InfraError(`${cmd} is missing (needed ${purpose}): ${HOW_TO_GET[cmd] ?? `install ${cmd}`}`);
  }
  return path;
}

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
