/**
 * A consumer under test's build (consumers.service.build): run once before its processes start,
 * in the service's folder with the environment they get. A build that fails stops the run
 * (unknown), with its last output lines.
 */
import { spawn } from 'node:child_process';
import { InfraError } from '../errors.ts';

const LAST_LINES = 20;

export async function buildService(command: string[], cwd: string | undefined, env: Record<string, string | undefined>, log: (line: string) => void): Promise<void> {
  const [program, ...args] = command;
  const started = Date.now();
  const last: string[] = [];
  const child = spawn(program!, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      last.push(line);
      if (last.length > LAST_LINES) last.shift();
    }
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const how = await new Promise<string | null>((resolve) => {
    child.on('error', (e) => resolve(`could not start: ${e.message}`));
    child.on('exit', (code, signal) => resolve(code === 0 ? null : (signal ?? `exit code ${code}`)));
  });
  if (how) throw new InfraError(`consumers.service.build (${command.join(' ')}) failed: ${how}`, last.map((l) => `  ${l}`));
  log(`service built in ${((Date.now() - started) / 1000).toFixed(1)} s (${command.join(' ')})`);
}
