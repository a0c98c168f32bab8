/**
 * The containers runtime: the same topology as local.ts (one node with the consistent hash
 * exchange plugin, a Toxiproxy in front of its AMQP port), as container services. The compose
 * file and testcontainers both start from containerServices(). No image can be pulled on the
 * machines convoy is developed on, so deployContainers() is UNTESTED there; only what
 * containerServices() generates is unit-tested.
 */
import type { ContainerService, DeployContext } from '../../harness/broker/contract.ts';
import { TOXIPROXY_VERSION } from '../../harness/net/toxiproxy.ts';
import { containersDeployment, startBehindToxiproxy, toxiproxyService } from '../../harness/broker/containers.ts';
import type { RabbitEndpoint } from './connection.ts';
import { PROXY_NAME, type RabbitDeployment } from './local.ts';
import type { RabbitSettings } from './settings.ts';

/** Host ports of the compose file, away from 5672/15672/8474 a machine may already use. */
export const CONTAINER_PORTS = { amqpViaProxy: 35672, toxiproxyApi: 38474, management: 35673 } as const;
/** The port the proxy listens on inside the toxiproxy container. */
export const PROXY_LISTEN_PORT = 5673;

export function containerServices(settings: RabbitSettings): ContainerService[] {
  return [
    {
      name: 'rabbitmq',
      image: `rabbitmq:${settings.version}-management`,
      command: ['sh', '-c', 'rabbitmq-plugins enable --offline rabbitmq_consistent_hash_exchange && exec docker-entrypoint.sh rabbitmq-server'],
      environment: { RABBITMQ_DEFAULT_USER: 'guest', RABBITMQ_DEFAULT_PASS: 'guest', RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '-rabbit loopback_users []' },
      ports: [{ container: 15672, host: CONTAINER_PORTS.management }],
      healthcheck: { test: ['CMD', 'rabbitmq-diagnostics', '-q', 'check_port_connectivity'], intervalSeconds: 5, retries: 30 },
    },
    toxiproxyService('rabbitmq-toxiproxy', 'rabbitmq', { api: CONTAINER_PORTS.toxiproxyApi, listen: PROXY_LISTEN_PORT, listenOnHost: CONTAINER_PORTS.amqpViaProxy }),
  ];
}

/** Starts both services with testcontainers and creates the proxy (untested here: no images). */
export async function deployContainers(ctx: DeployContext, settings: RabbitSettings): Promise<RabbitDeployment> {
  const [node, toxiproxy] = containerServices(settings) as [ContainerService, ContainerService];
  const { endpoint, toxiproxyUrl, stop } = await startBehindToxiproxy<RabbitEndpoint>({
    broker: 'rabbitmq',
    node,
    toxiproxy,
    exposed: [5672, 15672],
    readyLog: /Server startup complete/,
    startupTimeoutMs: 120_000,
    proxy: { name: PROXY_NAME, listen: PROXY_LISTEN_PORT, upstreamPort: 5672 },
    ready: async (c) => ({
      url: `amqp://guest:guest@${c.proxy.host}:${c.proxy.port}`,
      adminUrl: `amqp://guest:guest@${c.node.host}:${c.node.port(5672)}`,
    }),
  });
  ctx.log(`rabbitmq (containers): AMQP through ${endpoint.url.replace(/guest:guest@/, '')}`);
  return containersDeployment({
    broker: 'rabbitmq',
    endpoint,
    versions: { rabbitmq: node.image, toxiproxy: TOXIPROXY_VERSION },
    proxyName: PROXY_NAME,
    toxiproxyUrl,
    stop,
  });
}
