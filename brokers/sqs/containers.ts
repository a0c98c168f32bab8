/**
 * The containers runtime: the same topology as local.ts (one ElasticMQ, a Toxiproxy in front
 * of its SQS port), as container services, from softwaremill/elasticmq-native (the GraalVM
 * build of the same server). The compose file and testcontainers both start from
 * containerServices(). No image can be pulled on the machines convoy is developed on, so
 * deployContainers() is UNTESTED there; only what containerServices() generates is unit-tested.
 */
import type { ContainerService, DeployContext } from '../../harness/broker/contract.ts';
import { sleep } from '../../harness/clock.ts';
import { TOXIPROXY_VERSION } from '../../harness/net/toxiproxy.ts';
import { containersDeployment, startBehindToxiproxy, toxiproxyService } from '../../harness/broker/containers.ts';
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
    toxiproxyService('sqs-toxiproxy', 'elasticmq', { api: CONTAINER_PORTS.toxiproxyApi, listen: PROXY_LISTEN_PORT, listenOnHost: CONTAINER_PORTS.sqsViaProxy }),
  ];
}

/** Starts both services with testcontainers and creates the proxy (untested here: no images). */
export async function deployContainers(ctx: DeployContext, settings: SqsSettings): Promise<SqsDeployment> {
  const [node, toxiproxy] = containerServices(settings) as [ContainerService, ContainerService];
  const { endpoint, toxiproxyUrl, stop } = await startBehindToxiproxy<SqsEndpoint>({
    broker: 'sqs',
    node,
    toxiproxy,
    exposed: [ELASTICMQ_PORT],
    startupTimeoutMs: 60_000,
    proxy: { name: PROXY_NAME, listen: PROXY_LISTEN_PORT, upstreamPort: ELASTICMQ_PORT },
    ready: async (c) => {
      const endpoint: SqsEndpoint = {
        url: `http://${c.proxy.host}:${c.proxy.port}`,
        adminUrl: `http://${c.node.host}:${c.node.port(ELASTICMQ_PORT)}`,
        region: LOCAL_REGION,
        credentials: { ...DUMMY_CREDENTIALS },
      };
      const deadline = Date.now() + 60_000;
      while (!(await sqsHealthy(endpoint.url!).catch(() => false))) {
        if (Date.now() > deadline) throw new Error(`ElasticMQ does not answer through ${endpoint.url}`);
        await sleep(250);
      }
      return endpoint;
    },
  });
  ctx.log(`sqs (containers): ElasticMQ through ${endpoint.url}`);
  return containersDeployment({
    broker: 'sqs',
    endpoint,
    versions: { elasticmq: node.image, '@aws-sdk/client-sqs': sdkVersion(), toxiproxy: TOXIPROXY_VERSION },
    emulator: { name: 'ElasticMQ (native image)', version: settings.version, notes: EMULATOR_NOTES },
    proxyName: PROXY_NAME,
    toxiproxyUrl,
    stop,
  });
}
