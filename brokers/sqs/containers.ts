/**
 * The containers runtime: the same topology as local.ts (one ElasticMQ, a Toxiproxy in front
 * of its SQS port), as container services, from softwaremill/elasticmq-native (the GraalVM
 * build of the same server). The compose file and testcontainers both start from
 * containerServices(). No image can be pulled on the machines convoy is developed on, so
 * deployContainers() is UNTESTED there; only what containerServices() generates is unit-tested.
 */
import type { ContainerService, DeployContext } from '../../harness/broker/contract.ts';
import { InfraError } from '../../harness/errors.ts';
import { sleep } from '../../harness/clock.ts';
import { ToxiproxyApi, TOXIPROXY_VERSION } from '../../harness/net/toxiproxy.ts';
import { DUMMY_CREDENTIALS, type SqsEndpoint } from './connection.ts';
import { EMULATOR_NOTES, LOCAL_REGION, PROXY_NAME, sdkVersion, sqsHealthy, type SqsDeployment } from './local.ts';
import type { SqsSettings } from './settings.ts';

/** Host ports of the compose file, away from 9324/8474 a machine may already use. */
export const CONTAINER_PORTS = { sqsViaProxy: 39324, sqsDirect: 39325, toxiproxyApi: 38477 } as const;
/** The SQS port inside the elasticmq container, and the proxy's listen port inside toxiproxy's. */
export const ELASTICMQ_PORT = 9324;
export const PROXY_LISTEN_PORT = 9330;

export function elasticmqImage(settings: SqsSettings): string {
  return `softwaremill/elasticmq-native:${settings.version}`;
}

export function containerServices(settings: SqsSettings): ContainerService[] {
  return [
    {
      name: 'elasticmq',
      image: elasticmqImage(settings),
      ports: [{ container: ELASTICMQ_PORT, host: CONTAINER_PORTS.sqsDirect }],
    },
    {
      name: 'sqs-toxiproxy',
      image: `ghcr.io/shopify/toxiproxy:${TOXIPROXY_VERSION}`,
      command: ['-host=0.0.0.0', '-port=8474'],
      ports: [
        { container: 8474, host: CONTAINER_PORTS.toxiproxyApi },
        { container: PROXY_LISTEN_PORT, host: CONTAINER_PORTS.sqsViaProxy },
      ],
      dependsOn: ['elasticmq'],
    },
  ];
}

/** Starts both services with testcontainers and creates the proxy (untested here: no images). */
export async function deployContainers(ctx: DeployContext, settings: SqsSettings): Promise<SqsDeployment> {
  let tc: typeof import('testcontainers');
  try {
    tc = await import('testcontainers');
  } catch (err) {
    throw new InfraError('the containers runtime needs the testcontainers package', [], { cause: err });
  }
  const [emqSvc, toxiSvc] = containerServices(settings) as [ContainerService, ContainerService];
  const network = await new tc.Network().start();
  const started: { stop(): Promise<unknown> }[] = [network];
  const stop = async () => {
    for (const s of started.reverse()) await s.stop().catch(() => {});
  };
  try {
    const emq = await new tc.GenericContainer(emqSvc.image)
      .withNetwork(network)
      .withNetworkAliases('elasticmq')
      .withExposedPorts(ELASTICMQ_PORT)
      .withStartupTimeout(60_000)
      .start();
    started.unshift(emq);
    const toxi = await new tc.GenericContainer(toxiSvc.image).withCommand(toxiSvc.command!).withNetwork(network).withExposedPorts(8474, PROXY_LISTEN_PORT).start();
    started.unshift(toxi);
    const api = new ToxiproxyApi(`http://${toxi.getHost()}:${toxi.getMappedPort(8474)}`);
    await api.client.createProxy({ name: PROXY_NAME, listen: `0.0.0.0:${PROXY_LISTEN_PORT}`, upstream: `elasticmq:${ELASTICMQ_PORT}`, enabled: true });
    const endpoint: SqsEndpoint = {
      url: `http://${toxi.getHost()}:${toxi.getMappedPort(PROXY_LISTEN_PORT)}`,
      adminUrl: `http://${emq.getHost()}:${emq.getMappedPort(ELASTICMQ_PORT)}`,
      region: LOCAL_REGION,
      credentials: { ...DUMMY_CREDENTIALS },
    };
    const deadline = Date.now() + 60_000;
    while (!(await sqsHealthy(endpoint.url!).catch(() => false))) {
      if (Date.now() > deadline) throw new Error(`ElasticMQ does not answer through ${endpoint.url}`);
      await sleep(250);
    }
    ctx.log(`sqs (containers): ElasticMQ through ${endpoint.url}`);
    return {
      broker: 'sqs',
      runtime: 'containers',
      endpoint: endpoint as unknown as Record<string, unknown>,
      versions: { elasticmq: emqSvc.image, '@aws-sdk/client-sqs': sdkVersion(), toxiproxy: TOXIPROXY_VERSION },
      emulator: { name: 'ElasticMQ (native image)', version: settings.version, notes: EMULATOR_NOTES },
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
    throw new InfraError(`sqs containers did not start: ${(err as Error).message}`, [], { cause: err });
  }
}
