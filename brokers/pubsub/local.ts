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
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrokerNode, DeployContext, Deployment } from '../../harness/broker/contract.ts';
import { InfraError } from '../../harness/errors.ts';
import { sleep } from '../../harness/clock.ts';
import { onCleanup } from '../../harness/runtime/cleanup.ts';
import { cacheDir } from '../../harness/runtime/cache.ts';
import { loadInstance, removeInstance, saveInstance, type InstanceRecord } from '../../harness/runtime/instances.ts';
import { freePort, isListening } from '../../harness/runtime/ports.ts';
import { LocalProcess, pidAlive, signalGroup, tailFile } from '../../harness/runtime/process.ts';
import { requireCommand, run } from '../../harness/runtime/tools.ts';
import { startToxiproxy, ToxiproxyApi, TOXIPROXY_VERSION, type ToxiproxyServer } from '../../harness/net/toxiproxy.ts';
import { clientVersion, type PubsubEndpoint } from './connection.ts';
import type { PubsubSettings } from './settings.ts';

export const SOURCE_DIR = fileURLToPath(new URL('./pstest-server/', import.meta.url));
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
  const go = requireCommand('go', 'to build the Pub/Sub emulator (pstest-server)');
  const tmp = `${bin}.tmp-${process.pid}`;
  log(`pstest: building ${SOURCE_DIR} with go build (first use only; modules from the Go module proxy)`);
  try {
    run(go, ['build', '-trimpath', '-buildvcs=false', '-o', tmp, '.'], {
      cwd: SOURCE_DIR,
      what: 'building pstest-server',
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

/** VmRSS / VmHWM (peak) of a process, in bytes. */
export function processMemory(pid: number | undefined): { rssBytes: number; peakRssBytes: number } | undefined {
  if (!pid) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? 0);
    return { rssBytes: kb('VmRSS') * 1024, peakRssBytes: kb('VmHWM') * 1024 };
  } catch {
    return undefined;
  }
}

export interface NodeLayout {
  grpcPort: number;
  controlPort: number;
  dir: string;
  logFile: string;
  pidFile: string;
  binary: string;
}

/** pstest-server as a BrokerNode: SIGKILL / SIGTERM and start again on the same ports (empty again). */
export class PstestNode implements BrokerNode {
  readonly id = 'node-1';
  private proc?: LocalProcess;
  private adoptedPid?: number;
  startupMs = 0;

  constructor(
    readonly layout: NodeLayout,
    private readonly persistent: boolean,
    private readonly log: (line: string) => void,
    private readonly onStarted: () => void = () => {},
  ) {}

  static adopt(layout: NodeLayout, log: (line: string) => void, onStarted: () => void): PstestNode {
    const node = new PstestNode(layout, true, log, onStarted);
    const pid = Number(readFileSync(layout.pidFile, 'utf8').trim());
    node.adoptedPid = pid > 0 ? pid : undefined;
    return node;
  }

  get controlUrl(): string {
    return `http://127.0.0.1:${this.layout.controlPort}`;
  }

  pid(): number | undefined {
    if (this.proc?.running) return this.proc.pid;
    return this.adoptedPid && pidAlive(this.adoptedPid) ? this.adoptedPid : undefined;
  }

  memory(): { rssBytes: number; peakRssBytes: number } | undefined {
    return processMemory(this.pid());
  }

  async start(): Promise<void> {
    if (this.pid()) return;
    const t0 = Date.now();
    const proc = LocalProcess.start({
      name: `pstest-server on ${this.layout.grpcPort}`,
      command: this.layout.binary,
      args: ['-host', '127.0.0.1', '-port', String(this.layout.grpcPort), '-control-port', String(this.layout.controlPort)],
      cwd: this.layout.dir,
      logFile: this.layout.logFile,
      pidFile: this.layout.pidFile,
      persistent: this.persistent,
    });
    this.proc = proc;
    this.adoptedPid = undefined;
    try {
      await proc.waitHealthy(() => pstestHealthy(this.controlUrl, this.layout.grpcPort), START_TIMEOUT_MS, 50);
    } catch (err) {
      await proc.stop('SIGKILL', 5_000);
      this.proc = undefined;
      throw new InfraError(
        `pstest-server did not start (gRPC 127.0.0.1:${this.layout.grpcPort}, control ${this.layout.controlPort}; log ${this.layout.logFile}): ${(err as Error).message}`,
        tailFile(this.layout.logFile, 12),
        { cause: err },
      );
    }
    this.startupMs = Date.now() - t0;
    this.log(`pstest-server healthy in ${this.startupMs} ms (gRPC 127.0.0.1:${this.layout.grpcPort})`);
    this.onStarted();
  }

  async stop(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    if (this.proc) {
      await this.proc.stop(signal, 5_000);
      this.proc = undefined;
      return;
    }
    const pid = this.pid();
    if (!pid) return;
    signalGroup(pid, signal);
    const deadline = Date.now() + 5_000;
    while (pidAlive(pid) && Date.now() < deadline) await sleep(50);
    if (pidAlive(pid)) signalGroup(pid, 'SIGKILL');
    while (pidAlive(pid)) await sleep(50);
    this.adoptedPid = undefined;
    rmSync(this.layout.pidFile, { force: true });
  }
}

export interface PubsubDeployment extends Deployment {
  /** pstest-server start-up (spawn to healthy) of the first start, in ms; 0 when reused or not local. */
  startupMs: number;
  reused: boolean;
  memory(): { rssBytes: number; peakRssBytes: number } | undefined;
  node?: PstestNode;
}

interface RecordData {
  layout: NodeLayout;
  toxiproxyPort: number;
  proxyPort: number;
  endpoint: PubsubEndpoint;
  version: { pstest: string; go: string };
}

export function instanceKey(): string {
  return `pubsub-pstest-${sourceHash()}`;
}

function deploymentOf(parts: {
  node: PstestNode;
  endpoint: PubsubEndpoint;
  toxiproxyUrl: string;
  version: { pstest: string; go: string };
  logFiles: string[];
  reused: boolean;
  stop: () => Promise<void>;
}): PubsubDeployment {
  const { node } = parts;
  return {
    broker: 'pubsub',
    runtime: 'local',
    endpoint: parts.endpoint as unknown as Record<string, unknown>,
    versions: { pstest: parts.version.pstest, go: parts.version.go, '@google-cloud/pubsub': clientVersion(), toxiproxy: TOXIPROXY_VERSION },
    emulator: { name: 'pstest', version: parts.version.pstest, notes: EMULATOR_NOTES },
    links: [{ name: 'clients', proxies: [PROXY_NAME], toxiproxyUrl: parts.toxiproxyUrl }],
    nodes: [node],
    logFiles: parts.logFiles,
    startupMs: parts.reused ? 0 : node.startupMs,
    reused: parts.reused,
    node,
    memory: () => node.memory(),
    stop: parts.stop,
  };
}

/** Undo what an interrupted run may have left on a reused proxy: a disabled link, toxics. */
async function resetProxy(api: ToxiproxyApi): Promise<void> {
  const p = await api.describe(PROXY_NAME);
  if (!p.enabled) await api.setEnabled(PROXY_NAME, true);
  for (const t of p.toxics) await api.removeToxic(PROXY_NAME, t.name);
}

async function reuse(ctx: DeployContext, settings: PubsubSettings): Promise<PubsubDeployment | undefined> {
  const key = instanceKey();
  const rec = loadInstance(key);
  if (!rec) return undefined;
  const data = rec.data as unknown as RecordData;
  const api = new ToxiproxyApi(`http://127.0.0.1:${data.toxiproxyPort}`);
  const ok =
    (await pstestHealthy(data.endpoint.controlUrl!, data.layout.grpcPort).catch(() => false)) &&
    (await api.healthy()) &&
    (await api.describe(PROXY_NAME).then(() => true, () => false));
  if (ok) await resetProxy(api);
  if (!ok) {
    ctx.log(`pubsub: instance ${key} is recorded but not healthy; starting a new pstest-server`);
    return undefined;
  }
  ctx.log(`pubsub: reusing pstest-server on 127.0.0.1:${data.layout.grpcPort} (clients through ${data.endpoint.emulatorHost})`);
  const node = PstestNode.adopt(data.layout, ctx.log, () => saveInstance({ ...rec, pids: [node.pid()!, ...rec.pids.slice(1)] }));
  // pstest takes any project name: the run's own goes in the endpoint.
  const endpoint = { ...data.endpoint, projectId: settings.projectId };
  return deploymentOf({ node, endpoint, toxiproxyUrl: api.url, version: data.version, logFiles: [data.layout.logFile], reused: true, stop: async () => {} });
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
  const key = instanceKey();

  let toxi: ToxiproxyServer | undefined;
  let recordRef: InstanceRecord | undefined;
  const node = new PstestNode(layout, persistent, ctx.log, () => {
    if (recordRef && node.pid()) {
      recordRef = { ...recordRef, pids: [node.pid()!, ...recordRef.pids.slice(1)] };
      saveInstance(recordRef);
    }
  });
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    unregister();
    await toxi?.stop().catch(() => {});
    await node.stop('SIGTERM');
    if (persistent) removeInstance(key);
  };
  const unregister = persistent ? () => {} : onCleanup(`pstest-server on ${grpcPort}`, stop);

  try {
    const results = await Promise.allSettled([node.start(), startToxiproxy({ workDir: dir, persistent, log: ctx.log })]);
    if (results[1].status === 'fulfilled') toxi = results[1].value;
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    const t = toxi!;
    await t.api.createProxy(PROXY_NAME, proxyPort, `127.0.0.1:${grpcPort}`);
    if (!(await isListening(proxyPort))) throw new InfraError(`the Toxiproxy proxy for pstest does not listen on ${proxyPort}`, tailFile(join(dir, 'toxiproxy.log')));
    const endpoint: PubsubEndpoint = {
      projectId: settings.projectId,
      emulatorHost: `127.0.0.1:${proxyPort}`,
      adminHost: `127.0.0.1:${grpcPort}`,
      controlUrl: node.controlUrl,
    };
    const version = await pstestVersion(node.controlUrl);
    if (persistent) {
      const data: RecordData = { layout, toxiproxyPort: t.port, proxyPort, endpoint, version };
      recordRef = {
        key,
        broker: 'pubsub',
        pids: [node.pid()!, t.process.pid!],
        pidFiles: [layout.pidFile, join(dir, 'toxiproxy.pid')],
        startedAt: new Date().toISOString(),
        data: data as unknown as Record<string, unknown>,
      };
      saveInstance(recordRef);
    }
    return deploymentOf({ node, endpoint, toxiproxyUrl: t.api.url, version, logFiles: [layout.logFile, join(dir, 'toxiproxy.log')], reused: false, stop });
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
}
