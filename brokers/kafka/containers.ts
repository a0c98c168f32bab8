/**
 * The containers runtime: the same topology as local.ts (topology.ts renders both), as
 * container services: `apache/kafka:<version>` nodes in KRaft combined mode and one Toxiproxy
 * whose proxies are the nodes' advertised CLIENT addresses.
 *
 * Clients run on the host, so advertised addresses must be host addresses: the proxies and
 * the direct ADMIN listeners use fixed host ports (mapped 1:1 into their containers) away from
 * 9092 and 8474. No image can be pulled on the machines convoy is developed on, so
 * deployContainers() is UNTESTED there; containerServices() and containerProxies() are
 * unit-tested (brokers/kafka/test/settings.test.ts).
 */
import { createHash } from 'node:crypto';
import type { ContainerService, DeployContext, Deployment } from '../../harness/broker/contract.ts';
import { InfraError } from '../../harness/errors.ts';
import { sleep } from '../../harness/clock.ts';
import { ToxiproxyApi, TOXIPROXY_VERSION } from '../../harness/net/toxiproxy.ts';
import { toEndpoint, type KafkaEndpoint } from './endpoint.ts';
import { clusterHealthy } from './probe.ts';
import { HEAP } from './jvm.ts';
import { FALLBACK_VERSIONS } from './provision.ts';
import type { KafkaSettings } from './settings.ts';
import { brokerProperties, nodeName, proxyName, type NodeAddresses } from './topology.ts';

export const CONTAINER_PORTS = {
  toxiproxyApi: 38475,
  /** Host (and toxiproxy container) port of node i's client proxy: base + i. */
  proxyBase: 39090,
  /** Host (and broker container) port of node i's direct ADMIN listener: base + i. */
  adminBase: 39190,
} as const;
const CLIENT_PORT = 9092;
const INTERNAL_PORT = 19092;
const CONTROLLER_PORT = 9093;

export function containerVersion(settings: KafkaSettings): string {
  return settings.version === 'latest' ? FALLBACK_VERSIONS[0]! : settings.version;
}

function addresses(settings: KafkaSettings): NodeAddresses[] {
  return Array.from({ length: settings.nodes }, (_, i) => {
    const id = i + 1;
    const host = `kafka-${id}`;
    return {
      id,
      bindClient: `0.0.0.0:${CLIENT_PORT}`,
      bindInternal: `0.0.0.0:${INTERNAL_PORT}`,
      bindController: `0.0.0.0:${CONTROLLER_PORT}`,
      internal: `${host}:${INTERNAL_PORT}`,
      controller: `${host}:${CONTROLLER_PORT}`,
      advertisedClient: `localhost:${CONTAINER_PORTS.proxyBase + id}`,
      admin: `localhost:${CONTAINER_PORTS.adminBase + id}`,
      bindAdmin: `0.0.0.0:${CONTAINER_PORTS.adminBase + id}`,
    };
  });
}

/** server.properties key -> apache/kafka image variable: '.' -> '_', '_' -> '__', '-' -> '___'. */
export function envName(property: string): string {
  return 'KAFKA_' + property.replace(/_/g, '__').replace(/-/g, '___').replace(/\./g, '_').toUpperCase();
}

/** A stable cluster id for a topology, so the rendered compose file does not change between renders. */
function clusterId(settings: KafkaSettings): string {
  return createHash('sha256').update(`convoy-kafka-${settings.nodes}`).digest().subarray(0, 16).toString('base64url').replace(/^-/, 'A');
}

export function containerProxies(settings: KafkaSettings): { name: string; listen: string; upstream: string }[] {
  return addresses(settings).map((a) => ({
    name: proxyName(a.id),
    listen: `0.0.0.0:${CONTAINER_PORTS.proxyBase + a.id}`,
    upstream: `kafka-${a.id}:${CLIENT_PORT}`,
  }));
}

export function containerServices(settings: KafkaSettings): ContainerService[] {
  const nodes = addresses(settings);
  const version = containerVersion(settings);
  const brokers: ContainerService[] = nodes.map((n) => {
    const props = brokerProperties(n, { nodes, logDir: () => '/var/lib/kafka/data', extra: settings.brokerConfig });
    const environment: Record<string, string> = {
      CLUSTER_ID: clusterId(settings),
      KAFKA_HEAP_OPTS: `-Xms${HEAP.min} -Xmx${HEAP.max}`,
    };
    for (const [k, v] of Object.entries(props)) environment[envName(k)] = v;
    return {
      name: `kafka-${n.id}`,
      image: `apache/kafka:${version}`,
      environment,
      ports: [{ container: CONTAINER_PORTS.adminBase + n.id, host: CONTAINER_PORTS.adminBase + n.id }],
      healthcheck: {
        test: ['CMD-SHELL', `/opt/kafka/bin/kafka-broker-api-versions.sh --bootstrap-server ${n.internal} > /dev/null 2>&1`],
        intervalSeconds: 2,
        retries: 60,
      },
    };
  });
  const toxiproxy: ContainerService = {
    name: 'kafka-toxiproxy',
    image: `ghcr.io/shopify/toxiproxy:${TOXIPROXY_VERSION}`,
    command: ['-host=0.0.0.0', '-port=8474'],
    ports: [
      { container: 8474, host: CONTAINER_PORTS.toxiproxyApi },
      ...nodes.map((n) => ({ container: CONTAINER_PORTS.proxyBase + n.id, host: CONTAINER_PORTS.proxyBase + n.id })),
    ],
    dependsOn: brokers.map((b) => b.name),
  };
  return [...brokers, toxiproxy];
}

/** Starts the services with testcontainers, creates the proxies, waits for metadata (untested here). */
export async function deployContainers(ctx: DeployContext, settings: KafkaSettings): Promise<Deployment> {
  let tc: typeof import('testcontainers');
  try {
    tc = await import('testcontainers');
  } catch (err) {
    throw new InfraError('the containers runtime needs the testcontainers package', [], { cause: err });
  }
  const services = containerServices(settings);
  const network = await new tc.Network().start();
  const started: { stop(): Promise<unknown> }[] = [network];
  const stop = async () => {
    for (const s of started.splice(0).reverse()) await s.stop().catch(() => {});
  };
  try {
    for (const svc of services) {
      let c = new tc.GenericContainer(svc.image).withNetwork(network).withNetworkAliases(svc.name).withStartupTimeout(120_000);
      if (svc.command) c = c.withCommand(svc.command);
      if (svc.environment) c = c.withEnvironment(svc.environment);
      if (svc.ports.length) c = c.withExposedPorts(...svc.ports.map((p) => ({ container: p.container, host: p.host })));
      started.push(await c.start());
    }
    const api = new ToxiproxyApi(`http://localhost:${CONTAINER_PORTS.toxiproxyApi}`);
    for (const p of containerProxies(settings)) await api.client.createProxy({ ...p, enabled: true });
    const ids = Array.from({ length: settings.nodes }, (_, i) => i + 1);
    const endpoint: KafkaEndpoint = {
      bootstrapServers: ids.map((id) => `localhost:${CONTAINER_PORTS.proxyBase + id}`),
      adminBootstrapServers: ids.map((id) => `localhost:${CONTAINER_PORTS.adminBase + id}`),
    };
    const deadline = Date.now() + 120_000;
    while (!(await clusterHealthy(endpoint, ids.map((nodeId) => ({ nodeId }))).catch(() => false))) {
      if (Date.now() > deadline) throw new Error('no metadata through the proxies within 120 s');
      await sleep(500);
    }
    return {
      broker: 'kafka',
      runtime: 'containers',
      endpoint: toEndpoint(endpoint),
      versions: { kafka: containerVersion(settings), toxiproxy: TOXIPROXY_VERSION },
      links: [
        { name: 'clients', proxies: ids.map(proxyName), toxiproxyUrl: api.url },
        ...ids.map((id) => ({ name: nodeName(id), proxies: [proxyName(id)], toxiproxyUrl: api.url })),
      ],
      nodes: [],
      logFiles: [],
      stop,
    };
  } catch (err) {
    await stop();
    throw new InfraError(`Kafka containers did not start: ${(err as Error).message}`, [], { cause: err });
  }
}
