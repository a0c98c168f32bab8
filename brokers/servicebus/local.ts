/**
 * The local runtime: convoy's Service Bus emulator (brokers/servicebus/emulator/) as its own
 * process, behind a private Toxiproxy, so a cut link really cuts the SDK's AMQP connection.
 * The emulator keeps its entities in memory: a killed node comes back empty.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { moduleProcessArgs } from '../../harness/module-ext.ts';
import type { DeployContext, Deployment } from '../../harness/broker/contract.ts';
import { InfraError } from '../../harness/errors.ts';
import { TOXIPROXY_VERSION } from '../../harness/net/toxiproxy.ts';
import { freePort } from '../../harness/runtime/ports.ts';
import { tailFile } from '../../harness/runtime/process.ts';
import { ProcessNode, type NodeProcess } from '../../harness/broker/process-node.ts';
import { findProxied, proxiedDeployment, startProxied } from '../../harness/broker/proxied-node.ts';
import { connectionStringFor } from './emulator/index.ts';
import type { ServiceBusEndpoint } from './endpoint.ts';

const INSTANCE_KEY = 'servicebus-emulator';
export const PROXY_NAME = 'servicebus';
export const EMULATOR = { name: 'convoy servicebus emulator', version: '1', notes: 'AMQP 1.0 on rhea, driven by the unmodified @azure/service-bus SDK; see brokers/servicebus/README.md for what it leaves out' };

interface Layout {
  amqpPort: number;
  adminPort: number;
  dir: string;
  logFile: string;
  pidFile: string;
}

/** What the instance record keeps (besides the proxy's ports). */
interface RecordData {
  layout: Layout;
  endpoint: ServiceBusEndpoint;
}

const adminUrl = (layout: Layout) => `http://127.0.0.1:${layout.adminPort}`;

async function emulatorHealthy(layout: Layout): Promise<boolean> {
  const res = await fetch(`${adminUrl(layout)}/health`, { signal: AbortSignal.timeout(1_000) });
  await res.arrayBuffer();
  return res.ok;
}

function emulatorProcess(layout: Layout): NodeProcess {
  return {
    name: `servicebus emulator on ${layout.amqpPort}`,
    command: () => process.execPath,
    args: [...moduleProcessArgs('brokers/servicebus/emulator/main'), '--port', String(layout.amqpPort), '--admin-port', String(layout.adminPort)],
    cwd: layout.dir,
    logFile: layout.logFile,
    pidFile: layout.pidFile,
    healthy: () => emulatorHealthy(layout),
    startTimeoutMs: 30_000,
    pollMs: 100,
    stopGraceMs: 5_000,
    startFailure: (err) => new InfraError(`the Service Bus emulator did not start on 127.0.0.1:${layout.amqpPort} (log ${layout.logFile}): ${err.message}`, tailFile(layout.logFile, 12), { cause: err }),
    started: (ms) => `servicebus emulator healthy in ${(ms / 1000).toFixed(1)} s (AMQP 127.0.0.1:${layout.amqpPort})`,
  };
}

function deploymentOf(parts: { node: ProcessNode; endpoint: ServiceBusEndpoint; toxiproxyUrl: string; logFiles: string[]; reused: boolean; stop: () => Promise<void> }): Deployment {
  return proxiedDeployment({
    ...parts,
    broker: 'servicebus',
    versions: { emulator: EMULATOR.version, toxiproxy: TOXIPROXY_VERSION },
    emulator: EMULATOR,
    proxyName: PROXY_NAME,
  });
}

async function reuse(ctx: DeployContext): Promise<Deployment | undefined> {
  const found = await findProxied<RecordData>({
    key: INSTANCE_KEY,
    proxyName: PROXY_NAME,
    log: ctx.log,
    what: 'servicebus',
    healthy: (data) => emulatorHealthy(data.layout),
  });
  if (!found) return undefined;
  const { data } = found;
  ctx.log(`servicebus: reusing the emulator, ${found.owner} (AMQP through 127.0.0.1:${data.proxyPort})`);
  const node = ProcessNode.adopt(emulatorProcess(data.layout), ctx.log);
  node.onStarted = () => found.rememberPid(node.pid());
  return deploymentOf({ node, endpoint: data.endpoint, toxiproxyUrl: found.toxiproxyUrl, logFiles: [data.layout.logFile], reused: true, stop: async () => {} });
}

export async function deployLocal(ctx: DeployContext): Promise<Deployment> {
  if (ctx.reuse !== false) {
    const reused = await reuse(ctx);
    if (reused) return reused;
  }
  const dir = join(ctx.workDir, 'servicebus');
  mkdirSync(dir, { recursive: true });
  const [amqpPort, adminPort, proxyPort] = [await freePort(), await freePort(), await freePort()];
  const layout: Layout = { amqpPort, adminPort, dir, logFile: join(dir, 'emulator.log'), pidFile: join(dir, 'emulator.pid') };
  const persistent = ctx.persistent === true;
  const node = new ProcessNode(emulatorProcess(layout), persistent, ctx.log);
  const started = await startProxied<RecordData>({
    broker: 'servicebus',
    key: INSTANCE_KEY,
    name: `servicebus emulator on ${amqpPort}`,
    node,
    nodePid: () => node.pid(),
    nodePidFile: layout.pidFile,
    dir,
    ctx,
    proxy: { name: PROXY_NAME, port: proxyPort, upstream: amqpPort },
    ready: async () => ({ layout, endpoint: { connectionString: connectionStringFor('127.0.0.1', proxyPort), adminUrl: adminUrl(layout) } }),
  });
  return deploymentOf({ node, endpoint: started.data.endpoint, toxiproxyUrl: started.toxiproxyUrl, logFiles: [layout.logFile, started.toxiproxyLog], reused: false, stop: started.stop });
}
