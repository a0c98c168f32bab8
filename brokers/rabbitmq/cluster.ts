/**
 * A local RabbitMQ cluster (`broker.nodes: 3`): private nodes from the Debian package, each with
 * its own name, ports and data folder, clustered at their first boot, each behind its own proxy
 * in one private Toxiproxy (the `clients` link holds them all). The first node boots alone; the
 * others then boot together and join it (classic peer discovery: local.ts's nodeConfig). Nodes
 * share epmd and the user's Erlang cookie, as every local node does.
 *
 * Clients get every node's URL and connect to their own node first, then to the others in turn
 * (connection.ts), as a client given a cluster's node list does; quorum queues get a member on
 * each node. Reuse (`brokers up`) works as for one node: the record keeps every node's layout.
 *
 * With `peerLinks: proxied` the nodes reach each other through proxies of the same Toxiproxy,
 * one per directed pair (peer-links.ts), which the isolate fault cuts.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DeployContext, Deployment } from '../../harness/broker/contract.ts';
import { InfraError } from '../../harness/errors.ts';
import { startToxiproxy, ToxiproxyApi, type ToxiproxyServer } from '../../harness/net/toxiproxy.ts';
import { onCleanup } from '../../harness/runtime/cleanup.ts';
import { loadInstance, ownerOf, removeInstance, saveInstance, type InstanceRecord } from '../../harness/runtime/instances.ts';
import { freePorts } from '../../harness/runtime/ports.ts';
import { tailFile } from '../../harness/runtime/process.ts';
import { peerNet } from '../../harness/net/peer-address.ts';
import type { RabbitEndpoint } from './connection.ts';
import { cliError, runCli } from './ctl.ts';
import { cliInetrc, nodeInetrc, peerHostName, peerLinks, peerProxies, type PeerProxy } from './peer-links.ts';
import { amqpHealthy, checkVersion, instanceKey, LocalRabbitNode, nodeLayout, RABBITMQ_BIN_DIR, versions, writeNodeFiles, type NodeLayout } from './local.ts';
import type { RabbitSettings } from './settings.ts';

/** The clients' proxy of node i (1-based). */
export const clusterProxyName = (i: number): string => `rabbitmq-amqp-${i}`;

export interface ClusterDeployment extends Deployment {
  nodes: LocalRabbitNode[];
  startupMs: number;
  reused: boolean;
}

/** What the instance record keeps. */
interface ClusterRecord {
  layouts: NodeLayout[];
  proxyPorts: number[];
  /** peerLinks: proxied — the proxies between the nodes. */
  peers?: PeerProxy[];
  toxiproxyPort: number;
  endpoint: RabbitEndpoint;
}

/** The nodes `node` counts as running in its cluster (rabbitmqctl cluster_status). */
export async function runningNodes(endpoint: RabbitEndpoint, node: string, timeoutMs = 15_000): Promise<string[]> {
  const stdout = await runCli(endpoint, 'rabbitmqctl', node, ['cluster_status', '--formatter', 'json'], timeoutMs);
  try {
    return (JSON.parse(stdout) as { running_nodes?: string[] }).running_nodes ?? [];
  } catch {
    throw new Error(`rabbitmqctl cluster_status printed ${JSON.stringify(stdout.slice(0, 200))}`);
  }
}

function endpointOf(layouts: NodeLayout[], proxyPorts: number[], inetrc?: string): RabbitEndpoint {
  const urls = proxyPorts.map((p) => `amqp://guest:guest@127.0.0.1:${p}`);
  const adminUrls = layouts.map((l) => `amqp://guest:guest@127.0.0.1:${l.amqpPort}`);
  return { url: urls[0]!, urls, adminUrl: adminUrls[0], adminUrls, node: layouts[0]!.nodeName, nodes: layouts.map((l) => l.nodeName), rabbitmqctl: join(RABBITMQ_BIN_DIR, 'rabbitmqctl'), ...(inetrc ? { inetrc } : {}) };
}

function deploymentOf(parts: { nodes: LocalRabbitNode[]; peers: PeerProxy[]; endpoint: RabbitEndpoint; toxiproxyUrl: string; logFiles: string[]; reused: boolean; startupMs: number; stop: () => Promise<void> }): ClusterDeployment {
  return {
    broker: 'rabbitmq',
    runtime: 'local',
    endpoint: parts.endpoint as unknown as Record<string, unknown>,
    versions: versions(),
    links: [{ name: 'clients', proxies: parts.nodes.map((_, i) => clusterProxyName(i + 1)), toxiproxyUrl: parts.toxiproxyUrl }, ...peerLinks(parts.peers, parts.toxiproxyUrl)],
    nodes: parts.nodes,
    logFiles: parts.logFiles,
    startupMs: parts.startupMs,
    reused: parts.reused,
    stop: parts.stop,
  };
}

/** A cluster left running by `convoy brokers up` with the same setup, if every node is in it. */
async function reuse(ctx: DeployContext, settings: RabbitSettings): Promise<ClusterDeployment | undefined> {
  const rec = loadInstance(instanceKey(settings));
  if (!rec) return undefined;
  const data = rec.data as unknown as ClusterRecord;
  const api = new ToxiproxyApi(`http://127.0.0.1:${data.toxiproxyPort}`);
  const healthy = await runningNodes(data.endpoint, data.layouts[0]!.nodeName).then((r) => r.length === data.layouts.length, () => false) && (await api.healthy());
  if (!healthy) {
    ctx.log(`rabbitmq: cluster ${rec.key} is recorded but not healthy; starting a new one`);
    return undefined;
  }
  // An interrupted run may have left a link disabled or toxics on it.
  for (const name of [...data.layouts.map((_, i) => clusterProxyName(i + 1)), ...(data.peers ?? []).map((p) => p.name)]) {
    const p = await api.describe(name);
    if (!p.enabled) await api.setEnabled(name, true);
    for (const t of p.toxics) await api.removeToxic(name, t.name);
  }
  ctx.log(`rabbitmq: reusing the ${data.layouts.length}-node cluster ${data.layouts[0]!.nodeName}, ..., ${ownerOf(rec)}`);
  const nodes = data.layouts.map((l, i) => LocalRabbitNode.adopt(l, ctx.log, `node-${i + 1}`));
  nodes.forEach((n, i) => {
    n.onStarted = () => {
      const pid = n.groupPid;
      if (pid) saveInstance({ ...rec, pids: rec.pids.map((p, j) => (j === i ? pid : p)) });
    };
  });
  return deploymentOf({ nodes, peers: data.peers ?? [], endpoint: data.endpoint, toxiproxyUrl: api.url, logFiles: data.layouts.map((l) => l.logFile), reused: true, startupMs: 0, stop: async () => {} });
}

export async function deployCluster(ctx: DeployContext, settings: RabbitSettings): Promise<ClusterDeployment> {
  checkVersion(settings);
  if (ctx.reuse !== false) {
    const reused = await reuse(ctx, settings);
    if (reused) return reused;
  }
  const t0 = Date.now();
  const persistent = ctx.persistent === true;
  const count = settings.nodes;
  const dir = join(ctx.workDir, `rabbitmq-${count}node`);
  mkdirSync(dir, { recursive: true });
  const peered = settings.peerLinks === 'proxied';
  // Per node: AMQP, distribution, the clients' proxy, and with proxied peer links the port of
  // RabbitMQ's start-up check (local.ts's NodeLayout.peered).
  const per = peered ? 4 : 3;
  const ports = await freePorts(count * per);
  const layouts = Array.from({ length: count }, (_, i) =>
    nodeLayout(join(dir, `node-${i + 1}`), ports[i * per]!, ports[i * per + 1]!, peered ? { host: peerHostName(i + 1), checkPort: ports[i * per + 3]! } : undefined),
  );
  const proxyPorts = layouts.map((_, i) => ports[i * per + 2]!);
  const peers = layouts.map((l) => l.nodeName);
  const net = peerNet();
  const peerProxyList = peered ? peerProxies(layouts.map((l) => l.distPort), net) : [];
  const cliTable = peered ? join(dir, 'cli.inetrc') : undefined;
  if (cliTable) writeFileSync(cliTable, cliInetrc(count));
  for (const [i, l] of layouts.entries()) {
    mkdirSync(l.dir, { recursive: true });
    writeNodeFiles(l, peers, peered ? nodeInetrc(i + 1, count, net) : undefined);
  }
  const endpoint = endpointOf(layouts, proxyPorts, cliTable);
  const nodes = layouts.map((l, i) => new LocalRabbitNode(l, persistent, ctx.log, () => {}, `node-${i + 1}`));
  let toxi: ToxiproxyServer | undefined;
  let record: InstanceRecord | undefined;
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    unregister();
    await toxi?.stop().catch(() => {});
    // The last nodes first: the first one was the others' seed.
    for (const n of [...nodes].reverse()) await n.stop('SIGTERM').catch(() => {});
    if (persistent) removeInstance(instanceKey(settings));
    for (const l of layouts) rmSync(l.dataDir, { recursive: true, force: true });
  };
  const unregister = persistent ? () => {} : onCleanup(`rabbitmq cluster ${peers[0]}, ...`, stop);
  try {
    const toxiStart = startToxiproxy({ workDir: dir, persistent, log: ctx.log }).then((s) => (toxi = s));
    // The first node alone, then the others together: each joins a running node at its first
    // boot, through the peer proxies when there are some.
    await nodes[0]!.start();
    await toxiStart;
    for (const p of peerProxyList) await toxi!.api.createProxyAt(p.name, p.listen, p.upstream);
    await Promise.all(nodes.slice(1).map((n) => n.start()));
    const running = await runningNodes(endpoint, peers[0]!).catch((err: Error) => [`(cluster_status failed: ${cliError(err)})`]);
    if (peers.some((p) => !running.includes(p))) {
      throw new InfraError(`RabbitMQ cluster did not form: ${peers[0]} counts ${running.join(', ') || 'no node'} running, expected ${peers.join(', ')}; last log lines of ${layouts.at(-1)!.logFile}:`, tailFile(layouts.at(-1)!.logFile, 12));
    }
    for (const [i, l] of layouts.entries()) await toxi!.api.createProxy(clusterProxyName(i + 1), proxyPorts[i]!, `127.0.0.1:${l.amqpPort}`);
    for (const url of endpoint.urls!) {
      if (!(await amqpHealthy(url).catch(() => false))) throw new InfraError(`RabbitMQ cluster: a node answers but not through its Toxiproxy proxy (${url})`, tailFile(join(dir, 'toxiproxy.log')));
    }
    if (persistent) {
      const data: ClusterRecord = { layouts, proxyPorts, ...(peered ? { peers: peerProxyList } : {}), toxiproxyPort: toxi!.port, endpoint };
      record = {
        key: instanceKey(settings),
        broker: 'rabbitmq',
        pids: [...nodes.map((n) => n.groupPid!), toxi!.process.pid!],
        pidFiles: [...layouts.map((l) => l.pidFile), join(dir, 'toxiproxy.pid')],
        startedAt: new Date().toISOString(),
        data: data as unknown as Record<string, unknown>,
      };
      saveInstance(record);
      // A fault restarts a node under a new pid: keep the record's pid current.
      nodes.forEach((n, i) => {
        n.onStarted = () => {
          const pid = n.groupPid;
          if (record && pid) saveInstance((record = { ...record, pids: record.pids.map((p, j) => (j === i ? pid : p)) }));
        };
      });
    }
    const startupMs = Date.now() - t0;
    ctx.log(`rabbitmq cluster of ${count} nodes formed in ${(startupMs / 1000).toFixed(1)} s (${peers.join(', ')}${peered ? `; peer links through ${peerProxyList.length} proxies` : ''})`);
    return deploymentOf({ nodes, peers: peerProxyList, endpoint, toxiproxyUrl: toxi!.api.url, logFiles: [...layouts.map((l) => l.logFile), join(dir, 'toxiproxy.log')], reused: false, startupMs, stop });
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
}
