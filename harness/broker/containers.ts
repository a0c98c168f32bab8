/**
 * The containers runtime shared by the single-node brokers (RabbitMQ, SQS, Pub/Sub): the
 * node's container and a Toxiproxy container on one network, the clients' proxy pointing at
 * the node by its network alias. The compose file (`convoy compose`) and testcontainers start
 * from the same ContainerService list. No image can be pulled on the machines convoy is
 * developed on, so startBehindToxiproxy() is UNTESTED there; toxiproxyService() is.
 */
import type { ContainerService, Deployment } from './contract.ts';
import { InfraError } from '../errors.ts';
import { TOXIPROXY_VERSION, ToxiproxyApi } from '../net/toxiproxy.ts';
import type { NodeDeployment } from './proxied-node.ts';

/** The Toxiproxy service in front of `node`: its API and the clients' proxy port on the host. */
export function toxiproxyService(name: string, node: string, ports: { api: number; listen: number; listenOnHost: number }): ContainerService {
  return {
    name,
    image: `ghcr.io/shopify/toxiproxy:${TOXIPROXY_VERSION}`,
    command: ['-host=0.0.0.0', '-port=8474'],
    ports: [
      { container: 8474, host: ports.api },
      { container: ports.listen, host: ports.listenOnHost },
    ],
    dependsOn: [node],
  };
}

export interface Reachable {
  host: string;
  port(containerPort: number): number;
}

export interface BehindToxiproxyOptions<E> {
  /** For messages: "sqs". */
  broker: string;
  node: ContainerService;
  toxiproxy: ContainerService;
  /** Container ports of the node to map to the host. */
  exposed: number[];
  /** A log line that says the node is up (default: the ports accept connections). */
  readyLog?: RegExp;
  startupTimeoutMs: number;
  proxy: { name: string; listen: number; upstreamPort: number };
  /** Once the proxy exists: the clients' endpoint, checked through the proxy. */
  ready: (parts: { node: Reachable; proxy: { host: string; port: number } }) => Promise<E>;
}

export async function startBehindToxiproxy<E>(o: BehindToxiproxyOptions<E>): Promise<{ endpoint: E; toxiproxyUrl: string; stop: () => Promise<void> }> {
  let tc: typeof import('testcontainers');
  try {
    tc = await import('testcontainers');
  } catch (err) {
    throw new InfraError('the containers runtime needs the testcontainers package', [], { cause: err });
  }
  const network = await new tc.Network().start();
  const started: { stop(): Promise<unknown> }[] = [network];
  const stop = async () => {
    for (const s of started.reverse()) await s.stop().catch(() => {});
  };
  try {
    let node = new tc.GenericContainer(o.node.image).withNetwork(network).withNetworkAliases(o.node.name).withExposedPorts(...o.exposed);
    if (o.node.command) node = node.withCommand(o.node.command);
    if (o.node.environment) node = node.withEnvironment(o.node.environment);
    if (o.readyLog) node = node.withWaitStrategy(tc.Wait.forLogMessage(o.readyLog));
    const n = await node.withStartupTimeout(o.startupTimeoutMs).start();
    started.unshift(n);
    const toxi = await new tc.GenericContainer(o.toxiproxy.image)
      .withCommand(o.toxiproxy.command!)
      .withNetwork(network)
      .withExposedPorts(8474, o.proxy.listen)
      .start();
    started.unshift(toxi);
    const api = new ToxiproxyApi(`http://${toxi.getHost()}:${toxi.getMappedPort(8474)}`);
    await api.client.createProxy({ name: o.proxy.name, listen: `0.0.0.0:${o.proxy.listen}`, upstream: `${o.node.name}:${o.proxy.upstreamPort}`, enabled: true });
    const endpoint = await o.ready({
      node: { host: n.getHost(), port: (p) => n.getMappedPort(p) },
      proxy: { host: toxi.getHost(), port: toxi.getMappedPort(o.proxy.listen) },
    });
    return { endpoint, toxiproxyUrl: api.url, stop };
  } catch (err) {
    await stop();
    throw new InfraError(`${o.broker} containers did not start: ${(err as Error).message}`, [], { cause: err });
  }
}

/** The Deployment of a broker started by startBehindToxiproxy: no local nodes or logs to offer. */
export function containersDeployment(parts: {
  broker: string;
  endpoint: object;
  versions: Record<string, string>;
  emulator?: Deployment['emulator'];
  proxyName: string;
  toxiproxyUrl: string;
  stop: () => Promise<void>;
}): NodeDeployment<never> {
  return {
    broker: parts.broker,
    runtime: 'containers',
    endpoint: parts.endpoint as Record<string, unknown>,
    versions: parts.versions,
    emulator: parts.emulator,
    links: [{ name: 'clients', proxies: [parts.proxyName], toxiproxyUrl: parts.toxiproxyUrl }],
    nodes: [],
    logFiles: [],
    startupMs: 0,
    reused: false,
    memory: () => undefined,
    stop: parts.stop,
  };
}
