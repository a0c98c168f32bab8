/**
 * The local runtime: ElasticMQ (an SQS emulator in Scala) from Maven Central, on its own
 * loopback port, with a private Toxiproxy server in front of it.
 *
 * provisionElasticMQ() writes a one-dependency pom (org.elasticmq:elasticmq-server_2.13) and
 * lets `mvn dependency:copy-dependencies` collect the server and its jars into a temporary
 * folder of cacheDir('elasticmq', version), renamed to `lib` when complete: running it twice,
 * or from two processes, is safe. The server runs as `java -cp lib/* org.elasticmq.server.Main`
 * with `-Dconfig.file=` a generated elasticmq.conf that binds 127.0.0.1:<port>. Queues and
 * messages live in memory only (a killed node comes back empty, see README).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { BrokerNode, DeployContext, Deployment, NetworkLink } from '../../harness/broker/contract.ts';
import { InfraError } from '../../harness/errors.ts';
import { onCleanup } from '../../harness/runtime/cleanup.ts';
import { cacheDir } from '../../harness/runtime/cache.ts';
import { loadInstance, removeInstance, saveInstance, type InstanceRecord } from '../../harness/runtime/instances.ts';
import { freePort } from '../../harness/runtime/ports.ts';
import { LocalProcess, pidAlive, signalGroup, tailFile } from '../../harness/runtime/process.ts';
import { requireCommand, run } from '../../harness/runtime/tools.ts';
import { sleep } from '../../harness/clock.ts';
import { startToxiproxy, ToxiproxyApi, TOXIPROXY_VERSION, type ToxiproxyServer } from '../../harness/net/toxiproxy.ts';
import { DUMMY_CREDENTIALS, type SqsEndpoint } from './connection.ts';
import type { SqsSettings } from './settings.ts';

export const ELASTICMQ_ARTIFACT = 'org.elasticmq:elasticmq-server_2.13';
export const ELASTICMQ_MAIN = 'org.elasticmq.server.Main';
export const PROXY_NAME = 'sqs-http';
/** ElasticMQ answers with this region in ARNs unless told otherwise; convoy says us-east-1. */
export const LOCAL_REGION = 'us-east-1';
const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 3_000;
const JVM_OPTIONS = ['-Xms64m', '-Xmx512m', '-XX:+UseSerialGC', '-Xss512k'];

export function pomXml(version: string): string {
  const [groupId, artifactId] = ELASTICMQ_ARTIFACT.split(':');
  return `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>convoy</groupId>
  <artifactId>elasticmq-classpath</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>${groupId}</groupId><artifactId>${artifactId}</artifactId><version>${version}</version></dependency>
  </dependencies>
</project>
`;
}

/** The folder with the server's jars, once provisioned. */
export function elasticmqLibDir(version: string): string {
  return join(cacheDir('elasticmq', version), 'lib');
}

function libComplete(lib: string, version: string): boolean {
  return existsSync(join(lib, `elasticmq-server_2.13-${version}.jar`));
}

/** Collects ElasticMQ's jars from Maven Central into the cache (first use only). */
export function provisionElasticMQ(version: string, log: (line: string) => void): string {
  const lib = elasticmqLibDir(version);
  if (libComplete(lib, version)) return lib;
  const mvn = requireCommand('mvn', 'to collect ElasticMQ from Maven Central');
  requireCommand('java', 'to run ElasticMQ');
  const base = dirname(lib);
  const tmp = mkdtempSync(join(base, '.provision-'));
  try {
    writeFileSync(join(tmp, 'pom.xml'), pomXml(version));
    log(`elasticmq ${version}: collecting ${ELASTICMQ_ARTIFACT} and its dependencies from Maven Central (first use only)`);
    run(mvn, ['-q', '-B', '-f', join(tmp, 'pom.xml'), 'dependency:copy-dependencies', `-DoutputDirectory=${join(tmp, 'lib')}`], {
      what: `collecting ElasticMQ ${version}`,
      timeoutMs: 600_000,
    });
    if (!libComplete(join(tmp, 'lib'), version)) throw new InfraError(`mvn finished but elasticmq-server_2.13-${version}.jar is missing from ${join(tmp, 'lib')}`);
    try {
      renameSync(join(tmp, 'lib'), lib);
    } catch (err) {
      // Another process finished first: use its copy.
      if (!libComplete(lib, version)) throw err;
    }
    return lib;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** elasticmq.conf for a private node: loopback only, one port, no stats endpoint, in memory. */
export function elasticmqConfig(port: number, region = LOCAL_REGION): string {
  return [
    'include classpath("application.conf")',
    `node-address { protocol = "http", host = "127.0.0.1", port = ${port}, context-path = "" }`,
    `rest-sqs { enabled = true, bind-port = ${port}, bind-hostname = "127.0.0.1", sqs-limits = strict }`,
    'rest-stats { enabled = false }',
    'generate-node-address = false',
    'queues {}',
    `aws { region = "${region}", accountId = "000000000000" }`,
    '',
  ].join('\n');
}

/** Healthy = ListQueues answers (AWS JSON protocol, as the SDK speaks it). */
export async function sqsHealthy(url: string, timeoutMs = 2_000): Promise<boolean> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.ListQueues' },
    body: '{}',
    signal: AbortSignal.timeout(timeoutMs),
  });
  await res.arrayBuffer();
  return res.ok;
}

/** The version ElasticMQ printed when it started ("Starting ElasticMQ server (1.7.1)"). */
export function loggedVersion(logFile: string): string | undefined {
  const line = tailFile(logFile, 200).find((l) => l.includes('Starting ElasticMQ server ('));
  return line ? /\(([^)]+)\)/.exec(line.slice(line.indexOf('Starting ElasticMQ')))?.[1] : undefined;
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

export function sdkVersion(): string {
  try {
    const require = createRequire(import.meta.url);
    const main = require.resolve('@aws-sdk/client-sqs');
    let dir = dirname(main);
    while (!existsSync(join(dir, 'package.json')) && dir !== dirname(dir)) dir = dirname(dir);
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export interface NodeLayout {
  port: number;
  dir: string;
  confFile: string;
  logFile: string;
  pidFile: string;
  libDir: string;
}

/** ElasticMQ as a BrokerNode: SIGKILL / SIGTERM and start again on the same port (empty again). */
export class ElasticNode implements BrokerNode {
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

  static adopt(layout: NodeLayout, log: (line: string) => void, onStarted: () => void): ElasticNode {
    const node = new ElasticNode(layout, true, log, onStarted);
    const pid = Number(readFileSync(layout.pidFile, 'utf8').trim());
    node.adoptedPid = pid > 0 ? pid : undefined;
    return node;
  }

  pid(): number | undefined {
    if (this.proc?.running) return this.proc.pid;
    return this.adoptedPid && pidAlive(this.adoptedPid) ? this.adoptedPid : undefined;
  }

  memory(): { rssBytes: number; peakRssBytes: number } | undefined {
    return processMemory(this.pid());
  }

  get url(): string {
    return `http://127.0.0.1:${this.layout.port}`;
  }

  async start(): Promise<void> {
    if (this.pid()) return;
    const java = requireCommand('java', 'to run ElasticMQ');
    const t0 = Date.now();
    const proc = LocalProcess.start({
      name: `elasticmq on ${this.layout.port}`,
      command: java,
      args: [...JVM_OPTIONS, `-Dconfig.file=${this.layout.confFile}`, '-cp', `${this.layout.libDir}/*`, ELASTICMQ_MAIN],
      cwd: this.layout.dir,
      logFile: this.layout.logFile,
      pidFile: this.layout.pidFile,
      persistent: this.persistent,
    });
    this.proc = proc;
    this.adoptedPid = undefined;
    try {
      await proc.waitHealthy(() => sqsHealthy(this.url), START_TIMEOUT_MS, 100);
    } catch (err) {
      await proc.stop('SIGKILL', 5_000);
      this.proc = undefined;
      const lines = tailFile(this.layout.logFile, 30).filter((l) => /ERROR|Exception|BindException|Address already in use|Caused by/.test(l));
      throw new InfraError(`ElasticMQ did not start on 127.0.0.1:${this.layout.port} (log ${this.layout.logFile}): ${(err as Error).message}`, lines.length ? lines : tailFile(this.layout.logFile, 12), { cause: err });
    }
    this.startupMs = Date.now() - t0;
    this.log(`elasticmq healthy in ${(this.startupMs / 1000).toFixed(1)} s (127.0.0.1:${this.layout.port})`);
    this.onStarted();
  }

  /**
   * ElasticMQ's shutdown hook sometimes never finishes after long polls were aborted ("server
   * stopping ..." and nothing more); it keeps nothing on disk, so SIGTERM gets a short grace.
   */
  async stop(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    if (this.proc) {
      await this.proc.stop(signal, STOP_GRACE_MS);
      this.proc = undefined;
      return;
    }
    const pid = this.pid();
    if (!pid) return;
    signalGroup(pid, signal);
    const deadline = Date.now() + STOP_GRACE_MS;
    while (pidAlive(pid) && Date.now() < deadline) await sleep(50);
    if (pidAlive(pid)) signalGroup(pid, 'SIGKILL');
    while (pidAlive(pid)) await sleep(50);
    this.adoptedPid = undefined;
    rmSync(this.layout.pidFile, { force: true });
  }
}

export interface SqsDeployment extends Deployment {
  /** ElasticMQ start-up (spawn to healthy) of the first start, in ms; 0 when reused or not local. */
  startupMs: number;
  reused: boolean;
  memory(): { rssBytes: number; peakRssBytes: number } | undefined;
  node?: ElasticNode;
}

interface RecordData {
  layout: NodeLayout;
  toxiproxyPort: number;
  proxyPort: number;
  endpoint: SqsEndpoint;
  emulatorVersion: string;
}

export function instanceKey(settings: SqsSettings): string {
  return `sqs-elasticmq-${settings.version}`;
}

export const EMULATOR_NOTES =
  'ElasticMQ, an SQS emulator: FIFO groups, visibility timeouts, dedup and redrive as tested in brokers/sqs/README.md; ' +
  'not implemented: high-throughput FIFO (FifoThroughputLimit, DeduplicationScope); in memory only.';

function deploymentOf(
  parts: { node: ElasticNode; endpoint: SqsEndpoint; toxiproxyUrl: string; version: string; logFiles: string[]; reused: boolean; stop: () => Promise<void> },
): SqsDeployment {
  const { node } = parts;
  return {
    broker: 'sqs',
    runtime: 'local',
    endpoint: parts.endpoint as unknown as Record<string, unknown>,
    versions: { elasticmq: parts.version, java: javaVersion(), '@aws-sdk/client-sqs': sdkVersion(), toxiproxy: TOXIPROXY_VERSION },
    emulator: { name: 'ElasticMQ', version: parts.version, notes: EMULATOR_NOTES },
    links: [{ name: 'clients', proxies: [PROXY_NAME], toxiproxyUrl: parts.toxiproxyUrl } satisfies NetworkLink],
    nodes: [node],
    logFiles: parts.logFiles,
    startupMs: parts.reused ? 0 : node.startupMs,
    reused: parts.reused,
    node,
    memory: () => node.memory(),
    stop: parts.stop,
  };
}

let javaVersionCache: string | undefined;
function javaVersion(): string {
  if (!javaVersionCache) {
    // `java -version` prints on stderr.
    const r = spawnSync('java', ['-XshowSettings:properties', '-version'], { encoding: 'utf8', timeout: 10_000 });
    javaVersionCache = /java\.version = (\S+)/.exec(`${r.stdout ?? ''}${r.stderr ?? ''}`)?.[1] ?? 'unknown';
  }
  return javaVersionCache;
}

/** Undo what an interrupted run may have left on a reused proxy: a disabled link, toxics. */
async function resetProxy(api: ToxiproxyApi): Promise<void> {
  const p = await api.describe(PROXY_NAME);
  if (!p.enabled) await api.setEnabled(PROXY_NAME, true);
  for (const t of p.toxics) await api.removeToxic(PROXY_NAME, t.name);
}

async function reuse(ctx: DeployContext, settings: SqsSettings): Promise<SqsDeployment | undefined> {
  const key = instanceKey(settings);
  const rec = loadInstance(key);
  if (!rec) return undefined;
  const data = rec.data as unknown as RecordData;
  const api = new ToxiproxyApi(`http://127.0.0.1:${data.toxiproxyPort}`);
  const ok =
    (await sqsHealthy(`http://127.0.0.1:${data.layout.port}`).catch(() => false)) &&
    (await api.healthy()) &&
    (await api.describe(PROXY_NAME).then(() => true, () => false));
  if (ok) await resetProxy(api);
  if (!ok) {
    ctx.log(`sqs: instance ${key} is recorded but not healthy; starting a new ElasticMQ`);
    return undefined;
  }
  ctx.log(`sqs: reusing ElasticMQ on 127.0.0.1:${data.layout.port} (clients through 127.0.0.1:${data.proxyPort})`);
  const node = ElasticNode.adopt(data.layout, ctx.log, () => saveInstance({ ...rec, pids: [node.pid()!, ...rec.pids.slice(1)] }));
  return deploymentOf({ node, endpoint: data.endpoint, toxiproxyUrl: api.url, version: data.emulatorVersion, logFiles: [data.layout.logFile], reused: true, stop: async () => {} });
}

/** Fixed ports instead of free ones (tests). */
export interface LocalOptions {
  ports?: { sqs?: number; proxy?: number };
}

export async function deployLocal(ctx: DeployContext, settings: SqsSettings, opts: LocalOptions = {}): Promise<SqsDeployment> {
  if (ctx.reuse !== false) {
    const reused = await reuse(ctx, settings);
    if (reused) return reused;
  }
  const libDir = provisionElasticMQ(settings.version, ctx.log);
  const persistent = ctx.persistent === true;
  const dir = join(ctx.workDir, 'elasticmq');
  mkdirSync(dir, { recursive: true });
  const port = opts.ports?.sqs ?? (await freePort());
  const proxyPort = opts.ports?.proxy ?? (await freePort());
  const layout: NodeLayout = {
    port,
    dir,
    confFile: join(dir, 'elasticmq.conf'),
    logFile: join(dir, 'elasticmq.log'),
    pidFile: join(dir, 'elasticmq.pid'),
    libDir,
  };
  writeFileSync(layout.confFile, elasticmqConfig(port));
  const key = instanceKey(settings);

  let toxi: ToxiproxyServer | undefined;
  let recordRef: InstanceRecord | undefined;
  const node = new ElasticNode(layout, persistent, ctx.log, () => {
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
  const unregister = persistent ? () => {} : onCleanup(`elasticmq on ${port}`, stop);

  try {
    const results = await Promise.allSettled([node.start(), startToxiproxy({ workDir: dir, persistent, log: ctx.log })]);
    if (results[1].status === 'fulfilled') toxi = results[1].value;
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    const t = toxi!;
    await t.api.createProxy(PROXY_NAME, proxyPort, `127.0.0.1:${port}`);
    const endpoint: SqsEndpoint = {
      url: `http://127.0.0.1:${proxyPort}`,
      adminUrl: node.url,
      region: LOCAL_REGION,
      credentials: { ...DUMMY_CREDENTIALS },
    };
    if (!(await sqsHealthy(endpoint.url!).catch(() => false))) {
      throw new InfraError(`ElasticMQ answers on ${port} but not through the Toxiproxy proxy on ${proxyPort}`, tailFile(join(dir, 'toxiproxy.log')));
    }
    const version = loggedVersion(layout.logFile) ?? settings.version;
    if (persistent) {
      const data: RecordData = { layout, toxiproxyPort: t.port, proxyPort, endpoint, emulatorVersion: version };
      recordRef = {
        key,
        broker: 'sqs',
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
