/**
 * The local runtime with `emulator: convoy`: convoy's Pub/Sub emulator (emulator/) as its own
 * Node process, behind a private Toxiproxy in front of its gRPC port (the `clients` link), as
 * pstest-server is in local.ts. In memory: a killed node comes back empty.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { moduleProcessArgs } from '../../harness/module-ext.ts';
import type { DeployContext } from '../../harness/broker/contract.ts';
import { InfraError } from '../../harness/errors.ts';
import { TOXIPROXY_VERSION } from '../../harness/net/toxiproxy.ts';
import { freePort, isListening } from '../../harness/runtime/ports.ts';
import { tailFile } from '../../harness/runtime/process.ts';
import { ProcessNode, type NodeProcess } from '../../harness/broker/process-node.ts';
import { findProxied, proxiedDeployment, startProxied } from '../../harness/broker/proxied-node.ts';
import { clientVersion, type PubsubEndpoint } from './connection.ts';
import { EMULATOR_NAME, EMULATOR_VERSION } from './emulator/index.ts';
import { PROXY_NAME, type PubsubDeployment } from './local.ts';
import type { PubsubSettings } from './settings.ts';

const INSTANCE_KEY = `pubsub-convoy-emulator-${EMULATOR_VERSION}`;

export const CONVOY_EMULATOR_NOTES =
  "convoy's Pub/Sub emulator (brokers/pubsub/emulator): several outstanding messages per ordering key within flow control, " +
  "and the service's cascade (a redelivered message brings back the key's later delivered messages, acked or not); " +
  'dead-letter and retry policies; no exactly-once delivery, filters, push, snapshots or seek; in memory. See brokers/pubsub/README.md.';

interface Layout {
  grpcPort: number;
  controlPort: number;
  dir: string;
  logFile: string;
  pidFile: string;
}

interface RecordData {
  layout: Layout;
  endpoint: PubsubEndpoint;
}

const controlUrl = (layout: Layout) => `http://127.0.0.1:${layout.controlPort}`;

async function healthy(layout: Layout): Promise<boolean> {
  const res = await fetch(`${controlUrl(layout)}/health`, { signal: AbortSignal.timeout(1_000) });
  await res.arrayBuffer();
  return res.ok && (await isListening(layout.grpcPort));
}

function emulatorProcess(layout: Layout): NodeProcess {
  return {
    name: `pubsub emulator on ${layout.grpcPort}`,
    command: () => process.execPath,
    args: [...moduleProcessArgs('brokers/pubsub/emulator/main'), '--port', String(layout.grpcPort), '--control-port', String(layout.controlPort)],
    cwd: layout.dir,
    logFile: layout.logFile,
    pidFile: layout.pidFile,
    healthy: () => healthy(layout),
    startTimeoutMs: 30_000,
    pollMs: 50,
    stopGraceMs: 5_000,
    startFailure: (err) => new InfraError(`convoy's Pub/Sub emulator did not start on 127.0.0.1:${layout.grpcPort} (log ${layout.logFile}): ${err.message}`, tailFile(layout.logFile, 12), { cause: err }),
    started: (ms) => `pubsub emulator (convoy) healthy in ${ms} ms (gRPC 127.0.0.1:${layout.grpcPort})`,
  };
}

function deploymentOf(parts: { node: ProcessNode; endpoint: PubsubEndpoint; toxiproxyUrl: string; logFiles: string[]; reused: boolean; stop: () => Promise<void> }): PubsubDeployment {
  return proxiedDeployment({
    ...parts,
    broker: 'pubsub',
    versions: { [EMULATOR_NAME]: EMULATOR_VERSION, '@google-cloud/pubsub': clientVersion(), toxiproxy: TOXIPROXY_VERSION },
    emulator: { name: EMULATOR_NAME, version: EMULATOR_VERSION, notes: CONVOY_EMULATOR_NOTES },
    proxyName: PROXY_NAME,
  });
}

async function reuse(ctx: DeployContext, settings: PubsubSettings): Promise<PubsubDeployment | undefined> {
  const found = await findProxied<RecordData>({ key: INSTANCE_KEY, proxyName: PROXY_NAME, log: ctx.log, what: "pubsub (convoy's emulator)", healthy: (data) => healthy(data.layout) });
  if (!found) return undefined;
  const { data } = found;
  ctx.log(`pubsub: reusing convoy's emulator on 127.0.0.1:${data.layout.grpcPort}, ${found.owner} (clients through ${data.endpoint.emulatorHost})`);
  const node = ProcessNode.adopt(emulatorProcess(data.layout), ctx.log);
  node.onStarted = () => found.rememberPid(node.pid());
  return deploymentOf({ node, endpoint: { ...data.endpoint, projectId: settings.projectId }, toxiproxyUrl: found.toxiproxyUrl, logFiles: [data.layout.logFile], reused: true, stop: async () => {} });
}

export async function deployConvoyEmulator(ctx: DeployContext, settings: PubsubSettings): Promise<PubsubDeployment> {
  if (ctx.reuse !== false) {
    const reused = await reuse(ctx, settings);
    if (reused) return reused;
  }
  const dir = join(ctx.workDir, 'pubsub-emulator');
  mkdirSync(dir, { recursive: true });
  const [grpcPort, controlPort, proxyPort] = [await freePort(), await freePort(), await freePort()];
  const layout: Layout = { grpcPort, controlPort, dir, logFile: join(dir, 'emulator.log'), pidFile: join(dir, 'emulator.pid') };
  const node = new ProcessNode(emulatorProcess(layout), ctx.persistent === true, ctx.log);
  const started = await startProxied<RecordData>({
    broker: 'pubsub',
    key: INSTANCE_KEY,
    name: `pubsub emulator on ${grpcPort}`,
    node,
    nodePid: () => node.pid(),
    nodePidFile: layout.pidFile,
    dir,
    ctx,
    proxy: { name: PROXY_NAME, port: proxyPort, upstream: grpcPort },
    ready: async () => ({
      layout,
      endpoint: { projectId: settings.projectId, emulatorHost: `127.0.0.1:${proxyPort}`, adminHost: `127.0.0.1:${grpcPort}`, controlUrl: controlUrl(layout) },
    }),
  });
  return deploymentOf({ node, endpoint: started.data.endpoint, toxiproxyUrl: started.toxiproxyUrl, logFiles: [layout.logFile, started.toxiproxyLog], reused: false, stop: started.stop });
}
