/**
 * One local broker node behind a private Toxiproxy: the local runtime of the RabbitMQ, SQS,
 * Pub/Sub and Service Bus modules. Starts the node and the proxy server side by side, points
 * the clients' proxy at the node, records the instance when it must outlive this process
 * (`convoy brokers up`), and finds a recorded one again for reuse.
 */
import { join } from 'node:path';
import type { BrokerNode, DeployContext, Deployment } from './contract.ts';
import { startToxiproxy, ToxiproxyApi, type ToxiproxyServer } from '../net/toxiproxy.ts';
import { onCleanup } from '../runtime/cleanup.ts';
import { loadInstance, ownerOf, removeInstance, saveInstance, type InstanceRecord } from '../runtime/instances.ts';

/** What the instance record holds besides the module's own data. */
export interface ProxiedRecord {
  toxiproxyPort: number;
  proxyPort: number;
}

export interface StartProxiedOptions<D> {
  broker: string;
  /** The instance key (reusable setup). */
  key: string;
  /** For the clean-up list and messages: "elasticmq on 4567". */
  name: string;
  node: { start(): Promise<void>; stop(signal: 'SIGTERM'): Promise<void>; onStarted: () => void };
  /** The pid to record for the node (the process group leader). */
  nodePid: () => number | undefined;
  nodePidFile: string;
  /** Where the proxy server keeps its log and pid file. */
  dir: string;
  ctx: Pick<DeployContext, 'persistent' | 'log'>;
  /** The clients' proxy: its name, its port, and the node's port it forwards to. */
  proxy: { name: string; port: number; upstream: number };
  /** Once the proxy exists: check the node through it, and say what to record. */
  ready: (toxi: ToxiproxyServer) => Promise<D>;
  /** Extra clean-up once the node has stopped (its data folder). */
  afterStop?: () => void;
}

export interface ProxiedNode<D> {
  data: D;
  toxiproxyUrl: string;
  toxiproxyLog: string;
  /** Stops the proxy and the node, once; drops the instance record. */
  stop(): Promise<void>;
}

export async function startProxied<D>(o: StartProxiedOptions<D>): Promise<ProxiedNode<D>> {
  const persistent = o.ctx.persistent === true;
  let toxi: ToxiproxyServer | undefined;
  let record: InstanceRecord | undefined;
  // A fault restarts the node under a new pid: keep the record's pid current.
  o.node.onStarted = () => {
    const pid = o.nodePid();
    if (record && pid) {
      record = { ...record, pids: [pid, ...record.pids.slice(1)] };
      saveInstance(record);
    }
  };
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    unregister();
    await toxi?.stop().catch(() => {});
    await o.node.stop('SIGTERM');
    if (persistent) removeInstance(o.key);
    o.afterStop?.();
  };
  const unregister = persistent ? () => {} : onCleanup(o.name, stop);
  try {
    const results = await Promise.allSettled([o.node.start(), startToxiproxy({ workDir: o.dir, persistent, log: o.ctx.log })]);
    if (results[1].status === 'fulfilled') toxi = results[1].value;
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    const t = toxi!;
    await t.api.createProxy(o.proxy.name, o.proxy.port, `127.0.0.1:${o.proxy.upstream}`);
    const data = await o.ready(t);
    if (persistent) {
      const saved: D & ProxiedRecord = { ...data, toxiproxyPort: t.port, proxyPort: o.proxy.port };
      record = {
        key: o.key,
        broker: o.broker,
        pids: [o.nodePid()!, t.process.pid!],
        pidFiles: [o.nodePidFile, join(o.dir, 'toxiproxy.pid')],
        startedAt: new Date().toISOString(),
        data: saved as unknown as Record<string, unknown>,
      };
      saveInstance(record);
    }
    return { data, toxiproxyUrl: t.api.url, toxiproxyLog: join(o.dir, 'toxiproxy.log'), stop };
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
}

export interface FoundProxied<D> {
  data: D & ProxiedRecord;
  toxiproxyUrl: string;
  /** "started for the suite", or by `convoy brokers up` at a time. */
  owner: string;
  /** Keeps the record's node pid current after a restart. */
  rememberPid(pid: number | undefined): void;
}

/**
 * A node recorded by `convoy brokers up` whose node and proxy are healthy, with its proxy
 * reset (an interrupted run may have left the link disabled or toxics on it); undefined when
 * there is none or it is unhealthy.
 */
export async function findProxied<D>(o: {
  key: string;
  proxyName: string;
  log: (line: string) => void;
  /** "sqs: ... ElasticMQ": for the message when the record is unhealthy. */
  what: string;
  healthy: (data: D & ProxiedRecord) => Promise<boolean>;
}): Promise<FoundProxied<D> | undefined> {
  const rec = loadInstance(o.key);
  if (!rec) return undefined;
  const data = rec.data as unknown as D & ProxiedRecord;
  const api = new ToxiproxyApi(`http://127.0.0.1:${data.toxiproxyPort}`);
  const ok =
    (await o.healthy(data).catch(() => false)) &&
    (await api.healthy()) &&
    (await api.describe(o.proxyName).then(() => true, () => false));
  if (!ok) {
    o.log(`${o.what}: instance ${o.key} is recorded but not healthy; starting a new one`);
    return undefined;
  }
  const p = await api.describe(o.proxyName);
  if (!p.enabled) await api.setEnabled(o.proxyName, true);
  for (const t of p.toxics) await api.removeToxic(o.proxyName, t.name);
  return {
    data,
    toxiproxyUrl: api.url,
    owner: ownerOf(rec),
    rememberPid: (pid) => {
      if (pid) saveInstance({ ...rec, pids: [pid, ...rec.pids.slice(1)] });
    },
  };
}

/** A single-node broker's deployment, whatever the runtime: its node when it is local. */
export interface NodeDeployment<N extends BrokerNode = BrokerNode> extends Deployment {
  /** The node's start-up (spawn to healthy) at deploy, in ms; 0 when reused or not local. */
  startupMs: number;
  reused: boolean;
  /** The node's resident memory now and its peak (VmHWM); undefined when not local. */
  memory(): { rssBytes: number; peakRssBytes: number } | undefined;
  node?: N;
}

/** The Deployment of a local node behind its private Toxiproxy (started, or found again). */
export function proxiedDeployment<N extends BrokerNode & { startupMs: number; memory(): { rssBytes: number; peakRssBytes: number } | undefined }>(parts: {
  broker: string;
  endpoint: object;
  versions: Record<string, string>;
  emulator?: Deployment['emulator'];
  proxyName: string;
  toxiproxyUrl: string;
  node: N;
  logFiles: string[];
  reused: boolean;
  stop: () => Promise<void>;
}): NodeDeployment<N> {
  const { node } = parts;
  return {
    broker: parts.broker,
    runtime: 'local',
    endpoint: parts.endpoint as Record<string, unknown>,
    versions: parts.versions,
    emulator: parts.emulator,
    links: [{ name: 'clients', proxies: [parts.proxyName], toxiproxyUrl: parts.toxiproxyUrl }],
    nodes: [node],
    logFiles: parts.logFiles,
    startupMs: parts.reused ? 0 : node.startupMs,
    reused: parts.reused,
    node,
    memory: () => node.memory(),
    stop: parts.stop,
  };
}
