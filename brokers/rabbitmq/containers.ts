/**
 * The containers runtime: the same topology as local.ts (one node with the consistent hash
 * exchange plugin, a Toxiproxy in front of its AMQP port), as container services. The compose
 * file and testcontainers both start from containerServices(). No image can be pulled on the
 * machines convoy is developed on, so deployContainers() is UNTESTED there; only what
 * containerServices() generates is unit-tested.
 */
import type { ContainerService, DeployContext } from '../../harness/broker/contract.ts';
import { InfraError } from '../../harness/errors.ts';
import { ToxiproxyApi, TOXIPROXY_VERSION } from '../../harness/net/toxiproxy.ts';
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
    {
      name: 'rabbitmq-toxiproxy',
      image: `ghcr.io/shopify/toxiproxy:${TOXIPROXY_VERSION}`,
      command: ['-host=0.0.0.0', '-port=8474'],
      ports: [
        { container: 8474, host: CONTAINER_PORTS.toxiproxyApi },
        { container: PROXY_LISTEN_PORT, host: CONTAINER_PORTS.amqpViaProxy },
      ],
      dependsOn: ['rabbitmq'],
    },
  ];
}

/** Starts both services with testcontainers and creates the proxy (untested here: no images). */
export async function deployContainers(ctx: DeployContext, settings: RabbitSettings): Promise<RabbitDeployment> {
  let tc: typeof import('testcontainers');
  try {
    tc = await import('testcontainers');
  } catch (err) {
    throw new InfraError('the containers runtime needs the testcontainers package', [], { cause: err });
  }
  const [rabbitSvc, toxiSvc] = containerServices(settings) as [ContainerService, ContainerService];
  const network = await new tc.Network().start();
  const started: { stop(): Promise<unknown> }[] = [network];
  const stop = async () => {
    for (const s of started.reverse()) await s.stop().catch(() => {});
  };
  try {
    const rabbit = await new tc.GenericContainer(rabbitSvc.image)
      .withCommand(rabbitSvc.command!)
      .withEnvironment(rabbitSvc.environment!)
      .withNetwork(network)
      .withNetworkAliases('rabbitmq')
      .withExposedPorts(5672, 15672)
      .withWaitStrategy(tc.Wait.forLogMessage(/Server startup complete/))
      .withStartupTimeout(120_000)
      .start();
    started.unshift(rabbit);
    const toxi = await new tc.GenericContainer(toxiSvc.image)
      .withCommand(toxiSvc.command!)
      .withNetwork(network)
      .withExposedPorts(8474, PROXY_LISTEN_PORT)
      .start();
    started.unshift(toxi);
    const api = new ToxiproxyApi(`http://${toxi.getHost()}:${toxi.getMappedPort(8474)}`);
    await api.client.createProxy({ name: PROXY_NAME, listen: `0.0.0.0:${PROXY_LISTEN_PORT}`, upstream: 'rabbitmq:5672', enabled: true });
    const endpoint: RabbitEndpoint = {
      url: `amqp://guest:guest@${toxi.getHost()}:${toxi.getMappedPort(PROXY_LISTEN_PORT)}`,
      adminUrl: `amqp://guest:guest@${rabbit.getHost()}:${rabbit.getMappedPort(5672)}`,
    };
    ctx.log(`rabbitmq (containers): AMQP through ${endpoint.url.replace(/guest:guest@/, '')}`);
    return {
      broker: 'rabbitmq',
      runtime: 'containers',
      endpoint: endpoint as unknown as Record<string, unknown>,
      versions: { rabbitmq: rabbitSvc.image, toxiproxy: TOXIPROXY_VERSION },
      links: [{ name: 'clients', proxies: [PROXY_NAME], toxiproxyUrl: api.url }],
      nodes: [],
      logFiles: [],
      startupMs: 0,
      reused: false,
      memory: () => undefined,
      stop,
    };
  } catch (err) {
    await stop();
    throw new InfraError(`rabbitmq containers did not start: ${(err as Error).message}`, [], { cause: err });
  }
}
