/**
 * Running RabbitMQ's CLI tools (rabbitmqctl, rabbitmq-queues) against a local node, for the
 * control the AMQP API lacks. A cluster with proxied peer links names its nodes by host names
 * of convoy's (peer-links.ts): the tools find them through the endpoint's Erlang host table.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { RabbitEndpoint } from './connection.ts';

export type CliTool = 'rabbitmqctl' | 'rabbitmq-queues';

/** The tool's stdout; rejects with the tool's error (its stderr) when it fails or times out. */
export async function runCli(endpoint: Pick<RabbitEndpoint, 'rabbitmqctl' | 'inetrc'>, tool: CliTool, node: string, args: string[], timeoutMs: number): Promise<string> {
  if (!endpoint.rabbitmqctl) throw new Error(`no local node to reach with ${tool}`);
  const path = tool === 'rabbitmqctl' ? endpoint.rabbitmqctl : join(endpoint.rabbitmqctl, '..', tool);
  const env = endpoint.inetrc ? { ...process.env, ERL_INETRC: endpoint.inetrc } : process.env;
  const { stdout, stderr } = await promisify(execFile)(path, ['-n', node, ...args], { timeout: timeoutMs, encoding: 'utf8', env });
  // A tool that could not reach the node can still exit 0 with --formatter json: nothing on
  // stdout, the reason on stderr.
  if (!stdout.trim() && stderr.trim()) throw Object.assign(new Error(`${tool} printed nothing`), { stderr });
  return stdout;
}

/** The first line a failed tool printed (or its error message), for evidence. */
export function cliError(err: unknown): string {
  const e = err as { stderr?: string; message: string };
  return (e.stderr?.trim().split('\n')[0] || e.message).slice(0, 200);
}
