/**
 * A RabbitMQ node on a namespace host of its own (test/helpers/netns.ts), as a team's broker on
 * another machine: it listens on the host's address, not on loopback, and lets `guest` in from
 * other hosts, so the runner and the agents reach it at the same address. Runs reach it with
 * `--runtime external` and a connection file (`connectionFile`). It is the node the local runtime
 * starts (the same files and environment, brokers/rabbitmq/local.ts) with its listener moved.
 *
 * The node starts its own epmd inside the namespace; `stop()` ends every process left in the
 * namespace (all of them started here), since deleting a namespace does not end its processes.
 */
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { nodeConfig, nodeEnv, nodeLayout, writeNodeFiles } from '../../brokers/rabbitmq/local.ts';
import { RABBITMQ_SERVER } from '../../brokers/rabbitmq/requirements.ts';
import { requireTool } from '../../harness/runtime/requirements.ts';
import type { Host } from './netns.ts';

export const AMQP_PORT = 5672;

export interface BrokerHost {
  /** amqp://guest:guest@<host address>:5672/ */
  url: string;
  /** A connection file for `--runtime external --connection <file>` (no Toxiproxy in front: see docs/agents.md). */
  connectionFile: string;
  stop(): void;
}

/** Starts the node in `host`'s namespace, its files under `dir`, and waits until it has booted. */
export async function startRabbitOnHost(host: Host, dir: string, timeoutMs = 90_000): Promise<BrokerHost> {
  const layout = nodeLayout(join(dir, 'rabbitmq'), AMQP_PORT, 25672);
  writeNodeFiles(layout);
  // The local runtime's file, with the listener on the host's address and guest allowed from afar.
  const conf = nodeConfig(layout)
    .replace(/^listeners\.tcp\.default = .*$/m, `listeners.tcp.default = ${host.address}:${AMQP_PORT}`)
    .replace(/^loopback_users\.guest = true$/m, 'loopback_users = none');
  writeFileSync(join(layout.dir, 'rabbitmq.conf'), conf);
  const env = { ...nodeEnv(layout), RABBITMQ_NODE_IP_ADDRESS: host.address };
  const log = createWriteStream(layout.logFile);
  const child = host.spawn(requireTool(RABBITMQ_SERVER, 'to run RabbitMQ on a namespace host'), [], { cwd: layout.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const stop = (): void => {
    // Every process in the namespace is this node's (rabbitmq-server, the VM, its epmd and helpers).
    const pids = execFileSync('ip', ['netns', 'pids', host.ns], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = readLog(layout.logFile);
    if (/Server startup complete/.test(text)) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      stop();
      throw new Error(`RabbitMQ on ${host.address} did not start (${child.exitCode !== null ? 'exited' : 'timed out'}); its log's end:\n${text.split('\n').slice(-15).join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const url = `amqp://guest:guest@${host.address}:${AMQP_PORT}/`;
  const connectionFile = join(dir, 'broker-host.yaml');
  writeFileSync(connectionFile, `kind: rabbitmq\nurl: ${url}\nproxy: false\n`);
  return { url, connectionFile, stop };
}

function readLog(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
