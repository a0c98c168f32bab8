/**
 * The local runtime: convoy's Service Bus emulator (brokers/servicebus/emulator/) as its own
 * process, behind a private Toxiproxy, so a cut link really cuts the SDK's AMQP connection.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DeployContext, Deployment, BrokerNode } from '../../harness/broker/contract.ts';
import { startToxiproxy, TOXIPROXY_VERSION } from '../../harness/net/toxiproxy.ts';
import { onCleanup } from '../../harness/runtime/cleanup.ts';
import { loadInstance, saveInstance, removeInstance } from '../../harness/runtime/instances.ts';
import { freePort } from '../../harness/runtime/ports.ts';
import { LocalProcess } from '../../harness/runtime/process.ts';
import { connectionStringFor } from './emulator/index.ts';
import type { ServiceBusEndpoint } from './endpoint.ts';

const EMULATOR_MAIN = fileURLToPath(new URL('./emulator/main.ts', import.meta.url));
const TSX_LOADER = import.meta.resolve('tsx');
const INSTANCE_KEY = 'servicebus-emulator';
export const PROXY_NAME = 'servicebus';
export const EMULATOR = { name: 'convoy servicebus emulator', version: '1', notes: 'AMQP 1.0 on rhea, driven by the unmodified @azure/service-bus SDK; see brokers/servicebus/README.md for what it leaves out' };

interface Saved {
  endpoint: ServiceBusEndpoint;
  toxiproxyUrl: string;
}

export async function deployLocal(ctx: DeployContext): Promise<Deployment> {
  const versions = { emulator: EMULATOR.version, toxiproxy: TOXIPROXY_VERSION };
  if (ctx.reuse !== false) {
    const rec = loadInstance(INSTANCE_KEY);
    if (rec) {
      const saved = rec.data as unknown as Saved;
      ctx.log(`servicebus: reusing the emulator started by \`convoy brokers up\``);
      return {
        broker: 'servicebus', runtime: 'local', endpoint: saved.endpoint as unknown as Record<string, unknown>, versions, emulator: EMULATOR,
        links: [{ name: 'clients', proxies: [PROXY_NAME], toxiproxyUrl: saved.toxiproxyUrl }], nodes: [], logFiles: [], stop: async () => {},
      };
    }
  }
  const dir = join(ctx.workDir, 'servicebus');
  mkdirSync(dir, { recursive: true });
  const [amqpPort, adminPort] = [await freePort(), await freePort()];
  const persistent = ctx.persistent === true;
  const start = () =>
    LocalProcess.start({
      name: 'servicebus emulator',
      command: process.execPath,
      args: ['--import', TSX_LOADER, EMULATOR_MAIN, '--port', String(amqpPort), '--admin-port', String(adminPort)],
      logFile: join(dir, 'emulator.log'),
      pidFile: join(dir, 'emulator.pid'),
      persistent,
    });
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  const healthy = async () => (await fetch(`${adminUrl}/health`)).ok;
  let proc = start();
  const t0 = Date.now();
  await proc.waitHealthy(healthy, 30_000, 100);
  const toxi = await startToxiproxy({ workDir: dir, persistent, log: ctx.log });
  const proxyPort = await freePort();
  await toxi.api.createProxy(PROXY_NAME, proxyPort, `127.0.0.1:${amqpPort}`);
  ctx.log(`servicebus emulator up in ${((Date.now() - t0) / 1000).toFixed(1)} s (AMQP through Toxiproxy 127.0.0.1:${proxyPort})`);
  const endpoint: ServiceBusEndpoint = { connectionString: connectionStringFor('127.0.0.1', proxyPort), adminUrl };
  const node: BrokerNode = {
    id: 'emulator',
    pid: () => (proc.running ? proc.pid : undefined),
    stop: (signal) => proc.stop(signal, 5_000),
    async start() {
      proc = start();
      await proc.waitHealthy(healthy, 30_000, 100);
    },
  };
  const stopAll = async () => {
    await toxi.stop();
    await proc.stop('SIGTERM', 5_000);
    if (persistent) removeInstance(INSTANCE_KEY);
  };
  if (persistent) {
    saveInstance({
      key: INSTANCE_KEY, broker: 'servicebus', pids: [proc.pid!, toxi.process.pid!], pidFiles: [join(dir, 'emulator.pid'), join(dir, 'toxiproxy.pid')],
      startedAt: new Date().toISOString(), data: { endpoint, toxiproxyUrl: toxi.api.url } as unknown as Record<string, unknown>,
    });
  }
  const unregister = persistent ? () => {} : onCleanup('servicebus emulator', stopAll);
  return {
    broker: 'servicebus',
    runtime: 'local',
    endpoint: endpoint as unknown as Record<string, unknown>,
    versions,
    emulator: EMULATOR,
    links: [{ name: 'clients', proxies: [PROXY_NAME], toxiproxyUrl: toxi.api.url }],
    nodes: [node],
    logFiles: [join(dir, 'emulator.log'), join(dir, 'toxiproxy.log')],
    async stop() {
      if (persistent) return;
      unregister();
      await stopAll();
    },
  };
}
