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
import type { DeployContext } from '../../harness/broker/contract.ts';
import { InfraError } from '../../harness/errors.ts';
import { cacheDir } from '../../harness/runtime/cache.ts';
import { freePort } from '../../harness/runtime/ports.ts';
import { tailFile } from '../../harness/runtime/process.ts';
import { ProcessNode, type NodeProcess } from '../../harness/broker/process-node.ts';
import { findProxied, proxiedDeployment, startProxied, type NodeDeployment } from '../../harness/broker/proxied-node.ts';
import { MAVEN_HINT, run } from '../../harness/runtime/tools.ts';
import { JAVA, MAVEN, requireTool } from '../../harness/runtime/requirements.ts';
import { TOXIPROXY_VERSION } from '../../harness/net/toxiproxy.ts';
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
  const mvn = requireTool(MAVEN, 'to collect ElasticMQ from Maven Central');
  requireTool(JAVA, 'to run ElasticMQ');
  const base = dirname(lib);
  const tmp = mkdtempSync(join(base, '.provision-'));
  try {
    writeFileSync(join(tmp, 'pom.xml'), pomXml(version));
    log(`elasticmq ${version}: collecting ${ELASTICMQ_ARTIFACT} and its dependencies from Maven Central (first use only)`);
    run(mvn, ['-q', '-B', '-f', join(tmp, 'pom.xml'), 'dependency:copy-dependencies', `-DoutputDirectory=${join(tmp, 'lib')}`], {
      what: `collecting ElasticMQ ${version}`,
      hint: MAVEN_HINT,
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

/** ElasticMQ as a broker node: SIGKILL / SIGTERM and start again on the same port (empty again). */
export function elasticNode(layout: NodeLayout, persistent: boolean, log: (line: string) => void): ProcessNode {
  return new ProcessNode(elasticProcess(layout), persistent, log);
}

function elasticUrl(layout: NodeLayout): string {
  return `http://127.0.0.1:${layout.port}`;
}

function elasticProcess(layout: NodeLayout): NodeProcess {
  return {
    name: `elasticmq on ${layout.port}`,
    command: () => requireTool(JAVA, 'to run ElasticMQ'),
    args: [...JVM_OPTIONS, `-Dconfig.file=${layout.confFile}`, '-cp', `${layout.libDir}/*`, ELASTICMQ_MAIN],
    cwd: layout.dir,
    logFile: layout.logFile,
    pidFile: layout.pidFile,
    healthy: () => sqsHealthy(elasticUrl(layout)),
    startTimeoutMs: START_TIMEOUT_MS,
    pollMs: 100,
    // ElasticMQ's shutdown hook sometimes never finishes after long polls were aborted
    // ("server stopping ..." and nothing more); it keeps nothing on disk: a short grace.
    stopGraceMs: STOP_GRACE_MS,
    startFailure: (err) => {
      const lines = tailFile(layout.logFile, 30).filter((l) => /ERROR|Exception|BindException|Address already in use|Caused by/.test(l));
      return new InfraError(`ElasticMQ did not start on 127.0.0.1:${layout.port} (log ${layout.logFile}): ${err.message}`, lines.length ? lines : tailFile(layout.logFile, 12), { cause: err });
    },
    started: (ms) => `elasticmq healthy in ${(ms / 1000).toFixed(1)} s (127.0.0.1:${layout.port})`,
  };
}

export type SqsDeployment = NodeDeployment<ProcessNode>;

/** What the instance record keeps (besides the proxy's ports). */
interface RecordData {
  layout: NodeLayout;
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
  parts: { node: ProcessNode; endpoint: SqsEndpoint; toxiproxyUrl: string; version: string; logFiles: string[]; reused: boolean; stop: () => Promise<void> },
): SqsDeployment {
  return proxiedDeployment({
    ...parts,
    broker: 'sqs',
    versions: { elasticmq: parts.version, java: javaVersion(), '@aws-sdk/client-sqs': sdkVersion(), toxiproxy: TOXIPROXY_VERSION },
    emulator: { name: 'ElasticMQ', version: parts.version, notes: EMULATOR_NOTES },
    proxyName: PROXY_NAME,
  });
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
async function reuse(ctx: DeployContext, settings: SqsSettings): Promise<SqsDeployment | undefined> {
  const found = await findProxied<RecordData>({
    key: instanceKey(settings),
    proxyName: PROXY_NAME,
    log: ctx.log,
    what: 'sqs (ElasticMQ)',
    healthy: (data) => sqsHealthy(elasticUrl(data.layout)),
  });
  if (!found) return undefined;
  const { data } = found;
  ctx.log(`sqs: reusing ElasticMQ on 127.0.0.1:${data.layout.port}, ${found.owner} (clients through 127.0.0.1:${data.proxyPort})`);
  const node = ProcessNode.adopt(elasticProcess(data.layout), ctx.log);
  node.onStarted = () => found.rememberPid(node.pid());
  return deploymentOf({ node, endpoint: data.endpoint, toxiproxyUrl: found.toxiproxyUrl, version: data.emulatorVersion, logFiles: [data.layout.logFile], reused: true, stop: async () => {} });
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
  const node = elasticNode(layout, persistent, ctx.log);
  const started = await startProxied<RecordData>({
    broker: 'sqs',
    key: instanceKey(settings),
    name: `elasticmq on ${port}`,
    node,
    nodePid: () => node.pid(),
    nodePidFile: layout.pidFile,
    dir,
    ctx,
    proxy: { name: PROXY_NAME, port: proxyPort, upstream: port },
    ready: async () => {
      const endpoint: SqsEndpoint = { url: `http://127.0.0.1:${proxyPort}`, adminUrl: elasticUrl(layout), region: LOCAL_REGION, credentials: { ...DUMMY_CREDENTIALS } };
      if (!(await sqsHealthy(endpoint.url!).catch(() => false))) {
        throw new InfraError(`ElasticMQ answers on ${port} but not through the Toxiproxy proxy on ${proxyPort}`, tailFile(join(dir, 'toxiproxy.log')));
      }
      return { layout, endpoint, emulatorVersion: loggedVersion(layout.logFile) ?? settings.version };
    },
  });
  const { endpoint, emulatorVersion } = started.data;
  return deploymentOf({ node, endpoint, toxiproxyUrl: started.toxiproxyUrl, version: emulatorVersion, logFiles: [layout.logFile, started.toxiproxyLog], reused: false, stop: started.stop });
}
