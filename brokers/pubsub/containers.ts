/**
 * The containers runtime: Google's own Pub/Sub emulator (the gcloud CLI image, `gcloud beta
 * emulators pubsub start`) with a Toxiproxy in front of its gRPC port, as container services.
 * It is a different emulator from the local runtime's pstest (a Java server shipped with the
 * gcloud CLI), and it has no control endpoint, so publish failures cannot be injected there.
 * No image can be pulled on the machines convoy is developed on, so deployContainers() is
 * UNTESTED there; only what containerServices() generates is unit-tested.
 */
import type { ContainerService, DeployContext } from '../../harness/broker/contract.ts';
import { sleep } from '../../harness/clock.ts';
import { isListening } from '../../harness/runtime/ports.ts';
import { containersDeployment, startBehindToxiproxy, toxiproxyService } from '../../harness/broker/containers.ts';
import { TOXIPROXY_VERSION } from '../../harness/net/toxiproxy.ts';
import { clientVersion, type PubsubEndpoint } from './connection.ts';
import { PROXY_NAME, type PubsubDeployment } from './local.ts';
import { refuseConvoyEmulator, type PubsubSettings } from './settings.ts';

export const EMULATOR_IMAGE = 'gcr.io/google.com/cloudsdktool/google-cloud-cli:emulators';
/** Host ports of the compose file, away from 8085/8474 a machine may already use. */
export const CONTAINER_PORTS = { grpcViaProxy: 38086, grpcDirect: 38085, toxiproxyApi: 38476 } as const;
export const EMULATOR_PORT = 8085;
export const PROXY_LISTEN_PORT = 8086;

export function containerServices(settings: PubsubSettings): ContainerService[] {
  return [
    {
      name: 'pubsub-emulator',
      image: EMULATOR_IMAGE,
      command: ['gcloud', 'beta', 'emulators', 'pubsub', 'start', `--host-port=0.0.0.0:${EMULATOR_PORT}`, `--project=${settings.projectId}`],
      ports: [{ container: EMULATOR_PORT, host: CONTAINER_PORTS.grpcDirect }],
      healthcheck: { test: ['CMD-SHELL', `curl -sf http://localhost:${EMULATOR_PORT}/ || exit 1`], intervalSeconds: 2, retries: 60 },
    },
    toxiproxyService('pubsub-toxiproxy', 'pubsub-emulator', { api: CONTAINER_PORTS.toxiproxyApi, listen: PROXY_LISTEN_PORT, listenOnHost: CONTAINER_PORTS.grpcViaProxy }),
  ];
}

/** Starts both services with testcontainers and creates the proxy (untested here: no images). */
export async function deployContainers(ctx: DeployContext, settings: PubsubSettings): Promise<PubsubDeployment> {
  refuseConvoyEmulator(settings, 'containers');
  const [node, toxiproxy] = containerServices(settings) as [ContainerService, ContainerService];
  const { endpoint, toxiproxyUrl, stop } = await startBehindToxiproxy<PubsubEndpoint>({
    broker: 'pubsub',
    node,
    toxiproxy,
    exposed: [EMULATOR_PORT],
    readyLog: /Server started, listening on/,
    startupTimeoutMs: 120_000,
    proxy: { name: PROXY_NAME, listen: PROXY_LISTEN_PORT, upstreamPort: EMULATOR_PORT },
    ready: async (c) => {
      const deadline = Date.now() + 30_000;
      while (!(await isListening(c.proxy.port, c.proxy.host))) {
        if (Date.now() > deadline) throw new Error('the Toxiproxy proxy does not listen');
        await sleep(250);
      }
      return {
        projectId: settings.projectId,
        emulatorHost: `${c.proxy.host}:${c.proxy.port}`,
        adminHost: `${c.node.host}:${c.node.port(EMULATOR_PORT)}`,
      };
    },
  });
  ctx.log(`pubsub (containers): gcloud emulator through ${endpoint.emulatorHost}`);
  return containersDeployment({
    broker: 'pubsub',
    endpoint,
    versions: { emulator: EMULATOR_IMAGE, '@google-cloud/pubsub': clientVersion(), toxiproxy: TOXIPROXY_VERSION },
    emulator: { name: 'gcloud Pub/Sub emulator', version: EMULATOR_IMAGE.split(':')[1]!, notes: 'Google\'s Pub/Sub emulator from the gcloud CLI image; no publish-failure injection.' },
    proxyName: PROXY_NAME,
    toxiproxyUrl,
    stop,
  });
}
