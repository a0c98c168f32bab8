/**
 * The local runtime: Kafka brokers as JVM processes on this machine, one private Toxiproxy in
 * front of them.
 *
 *   workDir/kafka/node-<id>/{server.properties, data/, kafka.log, kafka.pid}
 *   workDir/kafka/toxiproxy.log
 *
 * Clients bootstrap from the proxies and every broker advertises its proxy as its CLIENT
 * listener, so all client traffic crosses Toxiproxy; replication and the KRaft quorum use
 * direct listeners. Ports come from the kernel (freePort), so runs never collide with each
 * other or with a broker already on 9092.
 *
 * With ctx.persistent (`convoy brokers up`) everything is started detached and recorded in
 * the cache; with ctx.reuse a later run finds that record (key `kafka-<version>-<n>node`) and
 * uses the running cluster, whose stop() then does nothing.
 */
import { mkdirSync, rmSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { BrokerNode, Deployment, DeployContext, NetworkLink } from '../../harness/broker/contract.ts';
import { InfraError } from '../../harness/errors.ts';
import { sleep } from '../../harness/clock.ts';
import { onCleanup } from '../../harness/runtime/cleanup.ts';
import { freePorts } from '../../harness/runtime/ports.ts';
import { LocalProcess, pidAlive, signalGroup, stopByPidFile, tailFile } from '../../harness/runtime/process.ts';
import { loadInstance, ownerOf, removeInstance, saveInstance, type InstanceRecord } from '../../harness/runtime/instances.ts';
import { startToxiproxy, ToxiproxyApi, TOXIPROXY_VERSION, type ToxiproxyServer } from '../../harness/net/toxiproxy.ts';
import { provision, type KafkaInstall } from './provision.ts';
import { brokerJvmArgs, cdsArchivePath, ensureBootstrapTemplate, ensureCdsArchive, formatArgs, formatFromTemplate, javaPath, runJava } from './jvm.ts';
import { brokerProperties, newClusterId, nodeName, proxyName, renderProperties, type NodeAddresses } from './topology.ts';
import { hostsFile, internalHostName, peerLinks, peerProxies, votersFor, type PeerProxy } from './peer-links.ts';
import { peerNet } from '../../harness/net/peer-address.ts';
import { currentLeader } from './quorum-state.ts';
import { toEndpoint, type KafkaEndpoint } from './endpoint.ts';
import { clusterHealthy } from './probe.ts';
import type { KafkaSettings } from './settings.ts';

export const START_TIMEOUT_MS = 90_000;
const HOST = '127.0.0.1';

/** What a reused instance needs to be rebuilt into a Deployment (saved in the instance record). */
interface NodeRecord {
  id: number;
  ports: { client: number; internal: number; controller: number; proxy: number; admin: number };
  dir: string;
  logFile: string;
  pidFile: string;
  command: string;
  args: string[];
}
interface InstanceData {
  version: string;
  endpoint: KafkaEndpoint;
  toxiproxyUrl: string;
  nodes: NodeRecord[];
  logFiles: string[];
  clusterId: string;
  /** peerLinks: proxied — the proxies between nodes (peer-links.ts). */
  peers?: PeerProxy[];
}

/** The reuse key: same version, node count, peer links and broker overrides. */
export function instanceKey(version: string, settings: Pick<KafkaSettings, 'nodes' | 'brokerConfig'> & Partial<Pick<KafkaSettings, 'peerLinks'>>): string {
  const extra = Object.keys(settings.brokerConfig ?? {}).length
    ? '-' + createHash('sha1').update(JSON.stringify(Object.entries(settings.brokerConfig).sort())).digest('hex').slice(0, 8)
    : '';
  const peers = settings.peerLinks === 'proxied' && settings.nodes > 1 ? '-peerproxied' : '';
  return `kafka-${version}-${settings.nodes}node${peers}${extra}`;
}

/** Peak resident memory (VmHWM) of a process in KiB, from /proc. */
export function peakRssKb(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** One broker JVM convoy controls: what kill/restart faults act on. */
class LocalKafkaNode implements BrokerNode {
  readonly id: string;
  private proc?: LocalProcess;
  /** A node of a reused instance: started by another convoy process, known by pid only. */
  private foreignPid?: number;

  constructor(
    readonly rec: NodeRecord,
    private readonly persistent: boolean,
    private readonly healthy: (rec: NodeRecord) => Promise<boolean>,
    private readonly onRestart: () => void,
  ) {
    this.id = nodeName(rec.id);
  }

  adopt(pid: number): void {
    this.foreignPid = pid;
  }

  launch(): LocalProcess {
    this.foreignPid = undefined;
    this.proc = LocalProcess.start({
      name: `kafka ${this.id}`,
      command: this.rec.command,
      args: this.rec.args,
      cwd: this.rec.dir,
      logFile: this.rec.logFile,
      pidFile: this.rec.pidFile,
      persistent: this.persistent,
    });
    return this.proc;
  }

  get process(): LocalProcess | undefined {
    return this.proc;
  }

  pid(): number | undefined {
    if (this.proc) return this.proc.running ? this.proc.pid : undefined;
    return pidAlive(this.foreignPid) ? this.foreignPid : undefined;
  }

  async stop(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    if (this.proc) {
      await this.proc.stop(signal, signal === 'SIGKILL' ? 5_000 : 20_000);
      return;
    }
    const pid = this.foreignPid;
    if (!pidAlive(pid)) return;
    signalGroup(pid, signal);
    const deadline = Date.now() + (signal === 'SIGKILL' ? 5_000 : 20_000);
    while (pidAlive(pid) && Date.now() < deadline) await sleep(50);
    if (pidAlive(pid)) signalGroup(pid, 'SIGKILL');
    while (pidAlive(pid)) await sleep(50);
  }

  /** Teardown: a short clean stop (the data is thrown away), then SIGKILL. */
  async halt(): Promise<void> {
    if (this.proc) await this.proc.stop('SIGTERM', 3_000);
    else await this.stop('SIGTERM');
  }

  async start(): Promise<void> {
    if (this.pid() !== undefined) return;
    const proc = this.launch();
    this.onRestart();
    await waitAllHealthy([{ name: `kafka ${this.id}`, proc }], () => this.healthy(this.rec), START_TIMEOUT_MS);
  }
}

/**
 * The lines that explain a failed start: from the first ERROR/FATAL/exception line near the
 * end of the log (Kafka prints the cause first, then a long stack), else the plain tail.
 */
export function failureLines(logFile: string, max = 25): string[] {
  const tail = tailFile(logFile, 300);
  const first = tail.findIndex((l) => /\b(ERROR|FATAL)\b|Exception|Error:/.test(l));
  const lines = first >= 0 ? tail.slice(first, first + max) : tail.slice(-max);
  return lines.map((l) => (l.length > 400 ? `${l.slice(0, 400)}...` : l));
}

/** Polls `check` until true; fails fast with the log tail of any process that exits. */
async function waitAllHealthy(
  procs: { name: string; proc: LocalProcess }[],
  check: () => Promise<boolean>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const { name, proc } of procs) {
      if (!proc.running) throw new InfraError(`${name} exited during start-up (log ${proc.spec.logFile}):`, failureLines(proc.spec.logFile));
    }
    if (signal?.aborted) throw new InfraError('start-up interrupted');
    try {
      if (await check()) return;
    } catch {
      /* not ready yet */
    }
    await sleep(200);
  }
  throw new InfraError(
    `Kafka did not become healthy within ${Math.round(timeoutMs / 1000)} s; last log lines:`,
    procs.flatMap(({ name, proc }) => [`--- ${name} (${proc.spec.logFile})`, ...proc.tail(12)]),
  );
}

function buildDeployment(opts: {
  data: InstanceData;
  nodes: LocalKafkaNode[];
  toxiproxyUrl: string;
  stop: () => Promise<void>;
}): Deployment {
  const { data } = opts;
  const links: NetworkLink[] = [
    { name: 'clients', proxies: data.nodes.map((n) => proxyName(n.id)), toxiproxyUrl: opts.toxiproxyUrl },
    ...data.nodes.map((n) => ({ name: nodeName(n.id), proxies: [proxyName(n.id)], toxiproxyUrl: opts.toxiproxyUrl })),
    ...peerLinks(data.peers ?? [], opts.toxiproxyUrl),
  ];
  return {
    broker: 'kafka',
    runtime: 'local',
    endpoint: toEndpoint(data.endpoint),
    versions: { kafka: data.version, toxiproxy: TOXIPROXY_VERSION, clusterId: data.clusterId },
    links,
    nodes: opts.nodes,
    logFiles: data.logFiles,
    stop: opts.stop,
    consensusLeader: () => {
      const id = currentLeader(data.nodes.map((n) => join(n.dir, 'data')));
      return id === undefined ? undefined : nodeName(id);
    },
  };
}

/** A running cluster left by `convoy brokers up`, if one matches and answers. */
async function reuse(ctx: DeployContext, key: string): Promise<Deployment | undefined> {
  const rec = loadInstance(key);
  if (!rec) return undefined;
  const data = rec.data as unknown as InstanceData;
  const expect = data.nodes.map((n) => ({ nodeId: n.id, address: `${HOST}:${n.ports.proxy}` }));
  const api = new ToxiproxyApi(data.toxiproxyUrl);
  // A proxy left disabled or with toxics by an interrupted run would fail the health check.
  await resetProxies(api, [...data.nodes.map((n) => proxyName(n.id)), ...(data.peers ?? []).map((p) => p.name)], ctx.log);
  // A request proxy of a run that crashed may still be each client proxy's upstream: point them back.
  for (const n of data.nodes) {
    const direct = `${HOST}:${n.ports.client}`;
    const upstream = await api.upstreamOf(proxyName(n.id)).catch(() => direct);
    if (upstream !== direct) {
      ctx.log(`pointing ${proxyName(n.id)} back at its node (a request proxy left it at ${upstream})`);
      await api.setUpstream(proxyName(n.id), direct);
    }
  }
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await clusterHealthy(data.endpoint, expect).catch(() => false)) break;
    await sleep(250);
  }
  if (!(await clusterHealthy(data.endpoint, expect).catch(() => false))) {
    ctx.log(`recorded Kafka ${key} runs but does not answer; stopping it and starting a new one`);
    for (const f of rec.pidFiles) await stopByPidFile(f, 5_000);
    removeInstance(key);
    return undefined;
  }
  const nodes: LocalKafkaNode[] = [];
  const record = (): void => {
    saveInstance({ ...rec, pids: [rec.pids[0]!, ...nodes.map((n) => n.pid() ?? 0)] });
  };
  for (const [i, n] of data.nodes.entries()) {
    const node = new LocalKafkaNode(n, true, (r) => nodeHealthy(data, r), record);
    node.adopt(rec.pids[i + 1]!);
    nodes.push(node);
  }
  ctx.log(`reusing Kafka ${data.version} (${data.nodes.length} node${data.nodes.length > 1 ? 's' : ''}) ${ownerOf(rec)}`);
  return buildDeployment({ data, nodes, toxiproxyUrl: data.toxiproxyUrl, stop: async () => {} });
}

async function resetProxies(api: ToxiproxyApi, names: string[], log: (l: string) => void): Promise<void> {
  for (const name of names) {
    try {
      const p = await api.describe(name);
      for (const t of p.toxics) {
        log(`removing toxic ${t.name} left on ${name}`);
        await api.removeToxic(name, t.name);
      }
      if (!p.enabled) {
        log(`enabling proxy ${name} left disabled`);
        await api.setEnabled(name, true);
      }
    } catch {
      /* the health check will tell */
    }
  }
}

function nodeHealthy(data: InstanceData, rec: NodeRecord): Promise<boolean> {
  return clusterHealthy(data.endpoint, [{ nodeId: rec.id, address: `${HOST}:${rec.ports.proxy}` }]);
}

export async function deployLocal(ctx: DeployContext, settings: KafkaSettings): Promise<Deployment> {
  const t0 = Date.now();
  const inst: KafkaInstall = provision(settings.version, { log: ctx.log });
  const key = instanceKey(inst.version, settings);
  if (ctx.reuse !== false) {
    const reused = await reuse(ctx, key);
    if (reused) return reused;
  }
  const archive = (await ensureCdsArchive(inst, ctx.log)) ?? cdsArchivePath(inst);
  const template = Object.keys(settings.brokerConfig).length === 0 ? await ensureBootstrapTemplate(inst, ctx.log) : undefined;
  const java = javaPath();
  const count = settings.nodes;
  // One folder per setup: a `brokers up` of another setup never touches a running one's data.
  const base = join(ctx.workDir, key);
  mkdirSync(base, { recursive: true });

  const ports = await freePorts(count * 5, HOST);
  const recs: NodeRecord[] = [];
  const addrs: NodeAddresses[] = [];
  for (let i = 0; i < count; i++) {
    const id = i + 1;
    const [client, internal, controller, proxy, admin] = ports.slice(i * 5, i * 5 + 5) as [number, number, number, number, number];
    const dir = join(base, nodeName(id));
    rmSync(join(dir, 'data'), { recursive: true, force: true }); // a fresh cluster every time
    mkdirSync(dir, { recursive: true });
    addrs.push({
      id,
      bindClient: `${HOST}:${client}`,
      bindInternal: `${HOST}:${internal}`,
      bindController: `${HOST}:${controller}`,
      internal: `${HOST}:${internal}`,
      controller: `${HOST}:${controller}`,
      advertisedClient: `${HOST}:${proxy}`,
      admin: `${HOST}:${admin}`,
    });
    recs.push({
      id,
      ports: { client, internal, controller, proxy, admin },
      dir,
      logFile: join(dir, 'kafka.log'),
      pidFile: join(dir, 'kafka.pid'),
      command: java,
      args: [],
    });
  }
  const clusterId = newClusterId();
  const peered = settings.peerLinks === 'proxied' && count > 1;
  const net = peerNet();
  const peerPorts = recs.map((r) => ({ id: r.id, internal: r.ports.internal, controller: r.ports.controller }));
  for (const r of recs) {
    const config = join(r.dir, 'server.properties');
    const node = peered ? { ...addrs[r.id - 1]!, internal: `${internalHostName(r.id)}:${r.ports.internal}` } : addrs[r.id - 1]!;
    const props = brokerProperties(node, { nodes: addrs, logDir: () => join(r.dir, 'data'), extra: settings.brokerConfig });
    const jvm = brokerJvmArgs(inst, { archive });
    if (peered) {
      props['controller.quorum.voters'] = votersFor(r.id, peerPorts, net, HOST);
      const hosts = join(r.dir, 'hosts');
      writeFileSync(hosts, hostsFile(r.id, recs.map((x) => x.id), net, HOST));
      jvm.unshift(`-Djdk.net.hosts.file=${hosts}`);
    }
    writeFileSync(config, renderProperties(props));
    r.args = [...jvm, 'kafka.Kafka', config];
    if (existsSync(r.logFile)) rmSync(r.logFile);
  }
  const data: InstanceData = {
    version: inst.version,
    clusterId,
    endpoint: {
      bootstrapServers: recs.map((r) => `${HOST}:${r.ports.proxy}`),
      adminBootstrapServers: recs.map((r) => `${HOST}:${r.ports.admin}`),
    },
    toxiproxyUrl: '',
    nodes: recs,
    peers: peered ? peerProxies(peerPorts, net, HOST) : undefined,
    logFiles: [...recs.map((r) => r.logFile), join(base, 'toxiproxy.log')],
  };

  let toxi: ToxiproxyServer | undefined;
  const nodes: LocalKafkaNode[] = [];
  let stopped = false;
  const stopAll = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await Promise.all(nodes.map((n) => n.halt().catch(() => n.stop('SIGKILL'))));
    await toxi?.stop().catch(() => {});
    if (ctx.persistent) removeInstance(key);
  };
  const unregister = ctx.persistent ? () => {} : onCleanup(`stop Kafka (${count} node${count > 1 ? 's' : ''})`, stopAll);

  try {
    // Formatting (one short JVM per node) overlaps the Toxiproxy start.
    const formats = Promise.all(
      recs.map(async (r) =>
        template
          ? formatFromTemplate(template, join(r.dir, 'data'), r.id, clusterId)
          : runJava(java, formatArgs(inst, join(r.dir, 'server.properties'), clusterId, archive), `formatting Kafka ${nodeName(r.id)} storage`),
      ),
    );
    const toxiStart = startToxiproxy({ workDir: base, persistent: ctx.persistent, log: ctx.log }).then((s) => (toxi = s));
    // Wait for both even when one fails, so a failed format never leaves Toxiproxy starting.
    const [formatted, toxiproxy] = await Promise.allSettled([formats, toxiStart]);
    if (formatted.status === 'rejected') throw formatted.reason;
    if (toxiproxy.status === 'rejected') throw toxiproxy.reason;
    const server = toxiproxy.value;
    data.toxiproxyUrl = server.api.url;
    for (const r of recs) await server.api.createProxy(proxyName(r.id), r.ports.proxy, `${HOST}:${r.ports.client}`);
    for (const p of data.peers ?? []) await server.api.createProxyAt(p.name, p.listen, p.upstream);

    const record = (): void => {
      if (!ctx.persistent) return;
      const rec: InstanceRecord = {
        key,
        broker: 'kafka',
        pids: [server.process.pid!, ...nodes.map((n) => n.pid() ?? 0)],
        pidFiles: [...recs.map((r) => r.pidFile), join(base, 'toxiproxy.pid')],
        startedAt: new Date().toISOString(),
        data: data as unknown as Record<string, unknown>,
      };
      saveInstance(rec);
    };
    for (const r of recs) nodes.push(new LocalKafkaNode(r, !!ctx.persistent, (x) => nodeHealthy(data, x), record));
    const procs = nodes.map((n) => ({ name: `kafka ${n.id}`, proc: n.launch() }));
    const expect = recs.map((r) => ({ nodeId: r.id, address: `${HOST}:${r.ports.proxy}` }));
    await waitAllHealthy(procs, () => clusterHealthy(data.endpoint, expect), START_TIMEOUT_MS, ctx.signal);
    record();
    ctx.log(`Kafka ${inst.version} up (${count} node${count > 1 ? 's' : ''}, clients via Toxiproxy ${data.endpoint.bootstrapServers.join(',')}) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } catch (err) {
    await stopAll();
    unregister();
    throw err instanceof InfraError ? err : new InfraError(`Kafka did not start: ${(err as Error).message}`, tailFile(recs[0]!.logFile, 15), { cause: err });
  }

  return buildDeployment({
    data,
    nodes,
    toxiproxyUrl: data.toxiproxyUrl,
    stop: async () => {
      await stopAll();
      unregister();
    },
  });
}
