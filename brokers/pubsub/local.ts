/**
 * The local runtime: convoy's pstest-server (brokers/pubsub/pstest-server, a Go main around
 * cloud.google.com/go/pubsub/v2/pstest) on its own loopback ports, with a private Toxiproxy
 * server in front of its gRPC port.
 *
 * provisionPstest() builds it with `go build` (modules from the Go module proxy, pinned by the
 * committed go.sum) into cacheDir('pstest', <hash of go.mod, go.sum and main.go>): a changed
 * source is a new binary, an unchanged one is built once per machine. The build writes a
 * temporary file and renames it, so running it twice, or from two processes, is safe.
 * pstest keeps everything in memory: a killed server comes back empty.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DeployContext } from '../../harness/broker/contract.ts';
import { InfraError } from '../../harness/errors.ts';
import { cacheDir } from '../../harness/runtime/cache.ts';
import { freePort, isListening } from '../../harness/runtime/ports.ts';
import { tailFile } from '../../harness/runtime/process.ts';
import { ProcessNode, type NodeProcess } from '../../harness/broker/process-node.ts';
import { findProxied, proxiedDeployment, startProxied, type NodeDeployment } from '../../harness/broker/proxied-node.ts';
import { GO_PROXY_HINT, run } from '../../harness/runtime/tools.ts';
import { GO, requireTool } from '../../harness/runtime/requirements.ts';
import { TOXIPROXY_VERSION } from '../../harness/net/toxiproxy.ts';
import { clientVersion, type PubsubEndpoint } from './connection.ts';
import type { PubsubSettings } from './settings.ts';

/** In the checkout (real path: the compiled tree links the folder), as go builds and messages name it. */
export const SOURCE_DIR = `${realpathSync(fileURLToPath(new URL('./pstest-server/', import.meta.url)))}/`;
const SOURCE_FILES = ['go.mod', 'go.sum', 'main.go'];
export const PROXY_NAME = 'pubsub-grpc';
const START_TIMEOUT_MS = 30_000;

export const EMULATOR_NOTES =
  'pstest (cloud.google.com/go/pubsub/v2/pstest), a fake for tests: ordering keys hand out one message per key at a time, ' +
  'so it cannot show the real service redelivering every later message of a key after a redelivery; a dead-lettered ' +
  'message stays in the subscription (re-published to the dead-letter topic every 10 ms, and with ordering its key stays ' +
  'blocked); without ordering it delivers in random (Go map) order; no flow control on the server side; in memory. ' +
  'See brokers/pubsub/README.md.';

/** Hash of the Go sources: the cache folder of the binary built from them. */
export function sourceHash(dir = SOURCE_DIR): string {
  const h = createHash('sha256');
  for (const f of SOURCE_FILES) h.update(`${f}\0`).update(readFileSync(join(dir, f))).update('\0');
  return h.digest('hex').slice(0, 16);
}

export function pstestBinary(): string {
  return join(cacheDir('pstest', sourceHash()), 'pstest-server');
}

/** Builds pstest-server with the Go toolchain (first use of these sources only). */
export function provisionPstest(log: (line: string) => void): string {
  const bin = pstestBinary();
  if (existsSync(bin)) return bin;
  const go = requireTool(GO, 'to build the Pub/Sub emulator (pstest-server)');
  const tmp = `${bin}.tmp-${process.pid}`;
  log(`pstest: building ${SOURCE_DIR} with go build (first use only; modules from the Go module proxy)`);
  try {
    run(go, ['build', '-trimpath', '-buildvcs=false', '-o', tmp, '.'], {
      cwd: SOURCE_DIR,
      what: 'building pstest-server',
      hint: GO_PROXY_HINT,
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=readonly' },
      timeoutMs: 900_000,
    });
    renameSync(tmp, bin);
  } finally {
    rmSync(tmp, { force: true });
  }
  return bin;
}

/** Healthy = the control endpoint answers and the gRPC port accepts connections. */
export async function pstestHealthy(controlUrl: string, grpcPort: number): Promise<boolean> {
  const res = await fetch(`${controlUrl}/health`, { signal: AbortSignal.timeout(1_000) });
  await res.arrayBuffer();
  return res.ok && (await isListening(grpcPort));
}

/** What pstest-server says it is: the pstest module version and the Go it was built with. */
export async function pstestVersion(controlUrl: string): Promise<{ pstest: string; go: string }> {
  const res = await fetch(`${controlUrl}/version`, { signal: AbortSignal.timeout(2_000) });
  if (!res.ok) throw new Error(`pstest-server /version: HTTP ${res.status}`);
  return (await res.json()) as { pstest: string; go: string };
}

export interface NodeLayout {
  grpcPort: number;
  controlPort: number;
  dir: string;
  logFile: string;
  pidFile: string;
  binary: string;
}

export function controlUrl(layout: NodeLayout): string {
  return `http://127.0.0.1:${layout.controlPort}`;
}

/** pstest-server as a broker node: SIGKILL / SIGTERM and start again on the same ports (empty again). */
export function pstestNode(layout: NodeLayout, persistent: boolean, log: (line: string) => void): ProcessNode {
  return new ProcessNode(pstestProcess(layout), persistent, log);
}

function pstestProcess(layout: NodeLayout): NodeProcess {
  return {
    name: `pstest-server on ${layout.grpcPort}`,
    command: () => layout.binary,
    args: ['-host', '127.0.0.1', '-port', String(layout.grpcPort), '-control-port', String(layout.controlPort)],
    cwd: layout.dir,
    logFile: layout.logFile,
    pidFile: layout.pidFile,
    healthy: () => pstestHealthy(controlUrl(layout), layout.grpcPort),
    startTimeoutMs: START_TIMEOUT_MS,
    pollMs: 50,
    stopGraceMs: 5_000,
    startFailure: (err) =>
      new InfraError(
        `pstest-server did not start (gRPC 127.0.0.1:${layout.grpcPort}, control ${layout.controlPort}; log ${layout.logFile}): ${err.message}`,
        tailFile(layout.logFile, 12),
        { cause: err },
      ),
    started: (ms) => `pstest-server healthy in ${ms} ms (gRPC 127.0.0.1:${layout.grpcPort})`,
  };
}

export type PubsubDeployment = NodeDeployment<ProcessNode>;

/** What the instance record keeps (besides the proxy's ports). */
interface RecordData {
  layout: NodeLayout;
  endpoint: PubsubEndpoint;
  version: { pstest: string; go: string };
}

export function instanceKey(): string {
  return `pubsub-pstest-${sourceHash()}`;
}

function deploymentOf(parts: {
  node: ProcessNode;
  endpoint: PubsubEndpoint;
  toxiproxyUrl: string;
  version: { pstest: string; go: string };
  logFiles: string[];
  reused: boolean;
  stop: () => Promise<void>;
}): PubsubDeployment {
  return proxiedDeployment({
    ...parts,
    broker: 'pubsub',
    versions: { pstest: parts.version.pstest, go: parts.version.go, '@google-cloud/pubsub': clientVersion(), toxiproxy: TOXIPROXY_VERSION },
    emulator: { name: 'pstest', version: parts.version.pstest, notes: EMULATOR_NOTES },
    proxyName: PROXY_NAME,
  });
}

async function reuse(ctx: DeployContext, settings: PubsubSettings): Promise<PubsubDeployment | undefined> {
  const found = await findProxied<RecordData>({
    key: instanceKey(),
    proxyName: PROXY_NAME,
    log: ctx.log,
    what: 'pubsub (pstest-server)',
    healthy: (data) => pstestHealthy(controlUrl(data.layout), data.layout.grpcPort),
  });
  if (!found) return undefined;
  const { data } = found;
  ctx.log(`pubsub: reusing pstest-server on 127.0.0.1:${data.layout.grpcPort}, ${found.owner} (clients through ${data.endpoint.emulatorHost})`);
  const node = ProcessNode.adopt(pstestProcess(data.layout), ctx.log);
  node.onStarted = () => found.rememberPid(node.pid());
  // pstest takes any project name: the run's own goes in the endpoint.
  const endpoint = { ...data.endpoint, projectId: settings.projectId };
  return deploymentOf({ node, endpoint, toxiproxyUrl: found.toxiproxyUrl, version: data.version, logFiles: [data.layout.logFile], reused: true, stop: async () => {} });
}

export async function deployLocal(ctx: DeployContext, settings: PubsubSettings): Promise<PubsubDeployment> {
  if (ctx.reuse !== false) {
    const reused = await reuse(ctx, settings);
    if (reused) return reused;
  }
  const binary = provisionPstest(ctx.log);
  const persistent = ctx.persistent === true;
  const dir = join(ctx.workDir, 'pstest');
  mkdirSync(dir, { recursive: true });
  const [grpcPort, controlPort, proxyPort] = [await freePort(), await freePort(), await freePort()];
  const layout: NodeLayout = { grpcPort, controlPort, dir, logFile: join(dir, 'pstest.log'), pidFile: join(dir, 'pstest.pid'), binary };
  const node = pstestNode(layout, persistent, ctx.log);
  const started = await startProxied<RecordData>({
    broker: 'pubsub',
    key: instanceKey(),
    name: `pstest-server on ${grpcPort}`,
    node,
    nodePid: () => node.pid(),
    nodePidFile: layout.pidFile,
    dir,
    ctx,
    proxy: { name: PROXY_NAME, port: proxyPort, upstream: grpcPort },
    ready: async () => {
      if (!(await isListening(proxyPort))) throw new InfraError(`the Toxiproxy proxy for pstest does not listen on ${proxyPort}`, tailFile(join(dir, 'toxiproxy.log')));
      const endpoint: PubsubEndpoint = {
        projectId: settings.projectId,
        emulatorHost: `127.0.0.1:${proxyPort}`,
        adminHost: `127.0.0.1:${grpcPort}`,
        controlUrl: controlUrl(layout),
      };
      return { layout, endpoint, version: await pstestVersion(controlUrl(layout)) };
    },
  });
  const { endpoint, version } = started.data;
  return deploymentOf({ node, endpoint, toxiproxyUrl: started.toxiproxyUrl, version, logFiles: [layout.logFile, started.toxiproxyLog], reused: false, stop: started.stop });
}
