/**
 * The local runtime: a private RabbitMQ node from the Debian package, on its own ports and
 * data folder, with a private Toxiproxy server in front of its AMQP port.
 *
 * The node runs in the foreground under LocalProcess (`rabbitmq-server` without -detached), so
 * its process group is ours and its log (RABBITMQ_LOGS=-) goes to <workDir>/rabbitmq/rabbitmq.log.
 * Nodes on one host share epmd (port 4369, started by the first Erlang node in its own
 * session, never stopped by convoy) and ~/.erlang.cookie; each node has a unique name,
 * `convoy-<amqpPort>@localhost`. Only the node's AMQP port and distribution port are bound.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import * as amqp from 'amqplib';
import type { BrokerNode, DeployContext } from '../../harness/broker/contract.ts';
import { InfraError, InputError } from '../../harness/errors.ts';
import { sleep } from '../../harness/clock.ts';
import { freePort } from '../../harness/runtime/ports.ts';
import { LocalProcess, pidAlive, processMemory, signalGroup, tailFile, type ProcessSpec } from '../../harness/runtime/process.ts';
import { findProxied, proxiedDeployment, startProxied, type NodeDeployment } from '../../harness/broker/proxied-node.ts';
import { requireTool } from '../../harness/runtime/requirements.ts';
import { installedVersion, RABBITMQ_BIN_DIR } from './bin-dir.ts';
import { RABBITMQ_SERVER } from './requirements.ts';
import { TOXIPROXY_VERSION } from '../../harness/net/toxiproxy.ts';
import type { RabbitEndpoint } from './connection.ts';
import type { RabbitSettings } from './settings.ts';

export const PROXY_NAME = 'rabbitmq-amqp';
export { installedVersion, RABBITMQ_BIN_DIR };
const START_TIMEOUT_MS = 90_000;

function erlangVersion(): string | undefined {
  try {
    const rel = readdirSync('/usr/lib/erlang/releases').find((d) => /^\d+$/.test(d));
    return rel ? readFileSync(`/usr/lib/erlang/releases/${rel}/OTP_VERSION`, 'utf8').trim() : undefined;
  } catch {
    return undefined;
  }
}

function amqplibVersion(): string {
  try {
    const require = createRequire(import.meta.url);
    const main = require.resolve('amqplib');
    return (JSON.parse(readFileSync(join(dirname(main), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** Everything about one node's files and ports (plain JSON: kept in the instance record). */
export interface NodeLayout {
  nodeName: string;
  amqpPort: number;
  distPort: number;
  dir: string;
  dataDir: string;
  logFile: string;
  /** The group leader's pid (the rabbitmq-server script), written by LocalProcess. */
  pidFile: string;
  /** The Erlang VM's pid, written by RabbitMQ (RABBITMQ_PID_FILE). */
  vmPidFile: string;
  /**
   * A cluster with proxied peer links (peer-links.ts): the node's Erlang host table, and the
   * port RabbitMQ's start-up check binds in place of distPort. The check binds the port on
   * every address, which fails while the peer proxies listen on 127.<R>.<i>.<j>:distPort; so
   * RABBITMQ_DIST_PORT names a free port of its own for the check, and rabbitmq.conf sets the
   * real one (the configuration is applied after the environment).
   */
  peered?: { inetrc: string; checkPort: number };
}

export function nodeLayout(dir: string, amqpPort: number, distPort: number, peered?: { host: string; checkPort: number }): NodeLayout {
  return {
    nodeName: `convoy-${amqpPort}@${peered?.host ?? 'localhost'}`,
    amqpPort,
    distPort,
    dir,
    dataDir: join(dir, 'data'),
    logFile: join(dir, 'rabbitmq.log'),
    pidFile: join(dir, 'rabbitmq.pid'),
    vmPidFile: join(dir, 'data', 'beam.pid'),
    ...(peered ? { peered: { inetrc: join(dir, 'inetrc'), checkPort: peered.checkPort } } : {}),
  };
}

/** Erlang's net_ticktime with proxied peer links: a silent peer is down after 7.5 to 12.5 s (the default, 60 s, would take a minute). */
export const PEER_NET_TICKTIME_S = 10;

/**
 * rabbitmq.conf for a private node: loopback only, one listener, small disk limit. In a cluster
 * (`peers`: every node's name, itself included), a node with an empty database joins the others
 * at its first boot (classic peer discovery), with no random wait before it (3.10 waits 5 to 60 s
 * by default, for nodes that boot at the same moment; convoy starts the first one alone).
 */
export function nodeConfig(layout: NodeLayout, peers: string[] = []): string {
  const cluster = peers.length > 1
    ? [
        'cluster_formation.peer_discovery_backend = classic_config',
        ...peers.map((p, i) => `cluster_formation.classic_config.nodes.${i + 1} = ${p}`),
        'cluster_formation.randomized_startup_delay_range.min = 0',
        'cluster_formation.randomized_startup_delay_range.max = 1',
      ]
    : [];
  // Proxied peer links: the distribution listener on 127.0.0.1 only (the proxies hold the
  // other loopback addresses on its port); a node cut off from the majority pauses (stops its
  // listeners) and starts again when the cut heals, as RabbitMQ advises for quorum queues.
  const peered = layout.peered
    ? [
        'distribution.listener.interface = 127.0.0.1',
        `distribution.listener.port_range.min = ${layout.distPort}`,
        `distribution.listener.port_range.max = ${layout.distPort}`,
        `net_ticktime = ${PEER_NET_TICKTIME_S}`,
        'cluster_partition_handling = pause_minority',
      ]
    : [];
  return [
    `listeners.tcp.default = 127.0.0.1:${layout.amqpPort}`,
    'loopback_users.guest = true',
    'disk_free_limit.absolute = 50MB',
    ...cluster,
    ...peered,
    '',
  ].join('\n');
}

export function nodeEnv(layout: NodeLayout): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // Leave out any RABBITMQ_* / ERL_* the user's shell has, so the node is really private.
  for (const [k, v] of Object.entries(process.env)) if (!/^(RABBITMQ_|ERL_)/.test(k)) env[k] = v;
  return {
    ...env,
    RABBITMQ_NODENAME: layout.nodeName,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(layout.amqpPort),
    RABBITMQ_DIST_PORT: String(layout.peered?.checkPort ?? layout.distPort),
    ...(layout.peered ? { ERL_INETRC: layout.peered.inetrc } : {}),
    RABBITMQ_MNESIA_BASE: join(layout.dataDir, 'mnesia'),
    RABBITMQ_LOG_BASE: join(layout.dataDir, 'log'),
    RABBITMQ_LOGS: '-',
    RABBITMQ_CONFIG_FILE: join(layout.dir, 'rabbitmq.conf'),
    RABBITMQ_ADVANCED_CONFIG_FILE: join(layout.dir, 'advanced.config'),
    RABBITMQ_ENABLED_PLUGINS_FILE: join(layout.dir, 'enabled_plugins'),
    // Our own (empty) env file: never read /etc/rabbitmq/rabbitmq-env.conf.
    RABBITMQ_CONF_ENV_FILE: join(layout.dir, 'rabbitmq-env.conf'),
    RABBITMQ_PID_FILE: layout.vmPidFile,
    ERL_CRASH_DUMP: join(layout.dataDir, 'erl_crash.dump'),
  };
}

/** The node's files; `inetrc` is its Erlang host table when its peer links are proxied. */
export function writeNodeFiles(layout: NodeLayout, peers: string[] = [], inetrc?: string): void {
  mkdirSync(join(layout.dataDir, 'mnesia'), { recursive: true });
  if (layout.peered && inetrc !== undefined) writeFileSync(layout.peered.inetrc, inetrc);
  mkdirSync(join(layout.dataDir, 'log'), { recursive: true });
  writeFileSync(join(layout.dir, 'rabbitmq.conf'), nodeConfig(layout, peers));
  writeFileSync(join(layout.dir, 'enabled_plugins'), '[rabbitmq_consistent_hash_exchange].\n');
  writeFileSync(join(layout.dir, 'rabbitmq-env.conf'), '# convoy: private node, settings come from the environment\n');
}

/** Healthy = an AMQP session works and the consistent hash exchange type exists. */
export async function amqpHealthy(url: string): Promise<boolean> {
  const conn = await amqp.connect(url, { timeout: 2_000 });
  conn.on('error', () => {});
  try {
    const ch = await conn.createChannel();
    ch.on('error', () => {});
    await ch.assertExchange('convoy.health', 'x-consistent-hash', { durable: false });
    await ch.deleteExchange('convoy.health');
    return true;
  } finally {
    await conn.close().catch(() => {});
  }
}

/** Log lines worth putting in an error: errors and boot failures first, then the tail. */
export function startFailureLines(logFile: string): string[] {
  const all = tailFile(logFile, 400);
  const important = all.filter((l) => /\[error\]|BOOT FAILED|init terminating|could_not_start|eaddrinuse|already in use|Error:|erl_crash|Protocol 'inet_tcp'/i.test(l));
  const lines = [...important.slice(0, 12).map((l) => l.slice(0, 400)), '...', ...all.slice(-8).map((l) => l.slice(0, 400))];
  return lines.length > 1 ? lines : ['(the log is empty)'];
}

/** The node as a BrokerNode: SIGKILL / SIGTERM and start again on the same ports and data. */
export class LocalRabbitNode implements BrokerNode {
  private proc?: LocalProcess;
  /** Start-up time of the last start, spawn to healthy. */
  startupMs = 0;

  constructor(
    readonly layout: NodeLayout,
    private readonly persistent: boolean,
    private readonly log: (line: string) => void,
    /** Called after every start (an owner updates its instance record with the new pid). */
    public onStarted: () => void = () => {},
    /** node-1, node-2, ... (what kill-broker names). */
    readonly id = 'node-1',
  ) {}

  /** A node started by an earlier convoy process (`brokers up`), known by its pid file. */
  static adopt(layout: NodeLayout, log: (line: string) => void, id = 'node-1'): LocalRabbitNode {
    return new LocalRabbitNode(layout, true, log, () => {}, id);
  }

  private pidFromFile(): number | undefined {
    try {
      const pid = Number(readFileSync(this.layout.pidFile, 'utf8').trim());
      return pid > 0 ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The group leader (the rabbitmq-server script): ours, or whoever the pid file names (a
   * process that reused this node may have restarted it).
   */
  get groupPid(): number | undefined {
    if (this.proc?.running) return this.proc.pid;
    const pid = this.pidFromFile();
    return pid && pidAlive(pid) ? pid : undefined;
  }

  /** The Erlang VM's pid while the node runs (undefined when stopped). */
  pid(): number | undefined {
    if (!this.groupPid) return undefined;
    try {
      const vm = Number(readFileSync(this.layout.vmPidFile, 'utf8').trim());
      if (pidAlive(vm)) return vm;
    } catch {
      /* not written yet */
    }
    return this.groupPid;
  }

  memory(): { rssBytes: number; peakRssBytes: number } | undefined {
    return processMemory(this.pid());
  }

  get url(): string {
    return `amqp://guest:guest@127.0.0.1:${this.layout.amqpPort}`;
  }

  async start(): Promise<void> {
    if (this.groupPid) return;
    const rmqServer = requireTool(RABBITMQ_SERVER, 'to run RabbitMQ locally');
    rmSync(this.layout.vmPidFile, { force: true });
    const spec: ProcessSpec = {
      name: `rabbitmq node ${this.layout.nodeName}`,
      command: rmqServer,
      args: [],
      env: nodeEnv(this.layout),
      cwd: this.layout.dir,
      logFile: this.layout.logFile,
      pidFile: this.layout.pidFile,
      persistent: this.persistent,
    };
    const t0 = Date.now();
    const proc = LocalProcess.start(spec);
    this.proc = proc;
    try {
      await proc.waitHealthy(() => amqpHealthy(this.url), START_TIMEOUT_MS, 250);
    } catch (err) {
      const why = proc.running ? `did not become healthy within ${START_TIMEOUT_MS / 1000} s` : 'exited during start-up';
      await proc.stop('SIGKILL', 5_000);
      this.proc = undefined;
      throw new InfraError(
        `RabbitMQ node ${this.layout.nodeName} ${why} (AMQP port ${this.layout.amqpPort}, dist port ${this.layout.distPort}); log ${this.layout.logFile}:`,
        startFailureLines(this.layout.logFile),
        { cause: err },
      );
    }
    this.startupMs = Date.now() - t0;
    this.log(`rabbitmq node ${this.layout.nodeName} healthy in ${(this.startupMs / 1000).toFixed(1)} s (AMQP 127.0.0.1:${this.layout.amqpPort})`);
    this.onStarted();
  }

  async stop(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    const graceMs = signal === 'SIGKILL' ? 5_000 : 30_000;
    const filePid = this.pidFromFile();
    const vm = this.pid();
    if (this.proc) {
      const own = this.proc.pid;
      await this.proc.stop(signal, graceMs);
      this.proc = undefined;
      if (filePid === own) return;
    }
    if (!filePid || !pidAlive(filePid)) return;
    signalGroup(filePid, signal);
    const gone = () => !pidAlive(filePid) && !pidAlive(vm);
    const deadline = Date.now() + graceMs;
    while (!gone() && Date.now() < deadline) await sleep(100);
    if (!gone()) {
      signalGroup(filePid, 'SIGKILL');
      if (vm) signalGroup(vm, 'SIGKILL');
      while (!gone()) await sleep(50);
    }
    rmSync(this.layout.pidFile, { force: true });
  }
}

export type RabbitDeployment = NodeDeployment<LocalRabbitNode>;

/** What the instance record keeps (besides the proxy's ports). */
interface RecordData {
  layout: NodeLayout;
  endpoint: RabbitEndpoint;
}

export function instanceKey(settings: Pick<RabbitSettings, 'version' | 'nodes'> & Partial<Pick<RabbitSettings, 'peerLinks'>>): string {
  const peers = settings.peerLinks === 'proxied' && settings.nodes > 1 ? '-peerproxied' : '';
  return `rabbitmq-${settings.version}-${settings.nodes}node${peers}`;
}

export function versions(): Record<string, string> {
  return {
    rabbitmq: installedVersion() ?? 'unknown',
    erlang: erlangVersion() ?? 'unknown',
    amqplib: amqplibVersion(),
    toxiproxy: TOXIPROXY_VERSION,
  };
}

export function checkVersion(settings: RabbitSettings): void {
  const have = installedVersion();
  if (have && !have.startsWith(settings.version + '.')) {
    throw new InputError(`broker.version ${settings.version}: the local runtime has RabbitMQ ${have} (from apt); use version: "${have.split('.').slice(0, 2).join('.')}" or the containers runtime`);
  }
}

/** A node left running by `convoy brokers up` with the same setup, if it is healthy. */
async function reuse(ctx: DeployContext, settings: RabbitSettings): Promise<RabbitDeployment | undefined> {
  const found = await findProxied<RecordData>({
    key: instanceKey(settings),
    proxyName: PROXY_NAME,
    log: ctx.log,
    what: 'rabbitmq',
    healthy: (data) => amqpHealthy(`amqp://guest:guest@127.0.0.1:${data.layout.amqpPort}`),
  });
  if (!found) return undefined;
  const { data } = found;
  ctx.log(`rabbitmq: reusing ${data.layout.nodeName}, ${found.owner} (AMQP through 127.0.0.1:${data.proxyPort})`);
  const node = LocalRabbitNode.adopt(data.layout, ctx.log);
  node.onStarted = () => found.rememberPid(node.groupPid);
  return deploymentOf({ node, endpoint: data.endpoint, toxiproxyUrl: found.toxiproxyUrl, logFiles: [data.layout.logFile], reused: true, stop: async () => {} });
}

function deploymentOf(parts: { node: LocalRabbitNode; endpoint: RabbitEndpoint; toxiproxyUrl: string; logFiles: string[]; reused: boolean; stop: () => Promise<void> }): RabbitDeployment {
  return proxiedDeployment({ ...parts, broker: 'rabbitmq', versions: versions(), proxyName: PROXY_NAME });
}

/** Fixed ports instead of free ones (tests use this to provoke a port conflict). */
export interface LocalOptions {
  ports?: { amqp?: number; dist?: number; proxy?: number };
}

export async function deployLocal(ctx: DeployContext, settings: RabbitSettings, opts: LocalOptions = {}): Promise<RabbitDeployment> {
  checkVersion(settings);
  if (ctx.reuse !== false) {
    const reused = await reuse(ctx, settings);
    if (reused) return reused;
  }
  const persistent = ctx.persistent === true;
  const dir = join(ctx.workDir, 'rabbitmq');
  mkdirSync(dir, { recursive: true });
  const amqpPort = opts.ports?.amqp ?? (await freePort());
  const distPort = opts.ports?.dist ?? (await freePort());
  const proxyPort = opts.ports?.proxy ?? (await freePort());
  const layout = nodeLayout(dir, amqpPort, distPort);
  writeNodeFiles(layout);
  const node = new LocalRabbitNode(layout, persistent, ctx.log);
  const started = await startProxied<RecordData>({
    broker: 'rabbitmq',
    key: instanceKey(settings),
    name: `rabbitmq node ${layout.nodeName}`,
    node,
    nodePid: () => node.groupPid,
    nodePidFile: layout.pidFile,
    dir,
    ctx,
    proxy: { name: PROXY_NAME, port: proxyPort, upstream: amqpPort },
    ready: async () => {
      const endpoint: RabbitEndpoint = {
        url: `amqp://guest:guest@127.0.0.1:${proxyPort}`,
        adminUrl: node.url,
        node: layout.nodeName,
        rabbitmqctl: join(RABBITMQ_BIN_DIR, 'rabbitmqctl'),
      };
      if (!(await amqpHealthy(endpoint.url).catch(() => false))) {
        throw new InfraError(`RabbitMQ answers on ${amqpPort} but not through the Toxiproxy proxy on ${proxyPort}`, tailFile(join(dir, 'toxiproxy.log')));
      }
      return { layout, endpoint };
    },
    afterStop: () => rmSync(layout.dataDir, { recursive: true, force: true }),
  });
  return deploymentOf({ node, endpoint: started.data.endpoint, toxiproxyUrl: started.toxiproxyUrl, logFiles: [layout.logFile, started.toxiproxyLog], reused: false, stop: started.stop });
}
