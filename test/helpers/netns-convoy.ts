/**
 * convoy's command line on a namespace host (test/helpers/netns.ts), as a user runs it: an agent
 * or a run, its output kept (and written to a log file when it exits).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import type { Host } from './netns.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const AGENT_TOKEN = 'netns-agents-token';
export const AGENT_PORT = 7411;

type Kept = ChildProcess & { output: () => string };

/** `convoy <args>` on `host`, with the agents' token; its output is kept and written to `log` at exit. */
export function convoyOn(host: Host, args: string[], log: string, env: Record<string, string> = {}): ChildProcess {
  const child = host.spawn(process.execPath, [join(ROOT, 'bin', 'convoy.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, CONVOY_AGENT_TOKEN: AGENT_TOKEN, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  for (const s of [child.stdout!, child.stderr!]) s.on('data', (d) => (out += d));
  child.on('exit', () => writeFileSync(log, out));
  (child as Kept).output = () => out;
  return child;
}

/** What a process started by `convoyOn` has written so far. */
export const output = (c: ChildProcess): string => (c as Kept).output();

/** `convoy agent` on `host`, its files under `workDir`, once it says it is listening. */
export async function startAgent(host: Host, workDir: string, log: string, env: Record<string, string> = {}): Promise<ChildProcess> {
  const agent = convoyOn(host, ['agent', '--listen', `${host.address}:${AGENT_PORT}`, '--work-dir', workDir, '--runner-timeout', '8000'], log, env);
  for (let i = 0; i < 200; i++) {
    if (/listening on/.test(output(agent))) return agent;
    if (agent.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  agent.kill('SIGKILL');
  throw new Error(`the agent did not start: ${output(agent)}`);
}
