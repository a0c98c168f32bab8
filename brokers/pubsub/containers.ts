/**
 * The containers runtime: Google's own Pub/Sub emulator (the gcloud CLI image, `gcloud beta
 * emulators pubsub start`) with a Toxiproxy in front of its gRPC port, as container services.
 * It is a different emulator from the local runtime's pstest (a Java server shipped with the
 * gcloud CLI), and it has no control endpoint, so publish failures cannot be injected there.
 * No image can be pulled on the machines convoy is developed on, so deployContainers() is
 * UNTESTED there; only what containerServices() generates is unit-tested.
 */
import type { ContainerService, DeployContext } from '../../harness/broker/contract.ts';
import { InfraError } from '../../harness/errors.ts';
import { sleep } from '../../harness/clock.ts';
import { isListening } from '../../harness/runtime/ports.ts';
import { ToxiproxyApi, TOXIPROXY_VERSION } from '../../harness/net/toxiproxy.ts';
import { clientVersion, type PubsubEndpoint } from './connection.ts';
import { PROXY_NAME, type PubsubDeployment } from './local.ts';
import type { PubsubSettings } from './settings.ts';

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
    {
      name: 'pubsub-toxiproxy',
      image: `ghcr.io/shopify/toxiproxy:${TOXIPROXY_VERSION}`,
      command: ['-host=0.0.0.0', '-port=8474'],
      ports: [
        { container: 8474, host: CONTAINER_PORTS.toxiproxyApi },
        { container: PROXY_LISTEN_PORT, host: CONTAINER_PORTS.grpcViaProxy },
      ],
      dependsOn: ['pubsub-emulator'],
    },
  ];
}

/** Starts both services with testcontainers and creates the proxy (untested here: no images). */
export async function deployContainers(ctx: DeployContext, settings: PubsubSettings): Promise<PubsubDeployment> {
  let tc: typeof import('testcontainers');
  try {
    tc = await import('testcontainers');
  } catch (err) {
    throw new InfraError('the containers runtime needs the testcontainers package', [], { cause: err });
  }
  const [emuSvc, toxiSvc] = containerServices(settings) as [ContainerService, ContainerService];
  const network = await new tc.Network().start();
  const started: { stop(): Promise<unknown> }[] = [network];
  const stop = async () => {
    for (const s of started.reverse()) await s.stop().catch(() => {});
  };
  try {
    const emu = await new tc.GenericContainer(emuSvc.image)
      .withCommand(emuSvc.command!)
      .withNetwork(network)
      .withNetworkAliases('pubsub-emulator')
      .withExposedPorts(EMULATOR_PORT)
      .withWaitStrategy(tc.Wait.forLogMessage(/Server started, listening on/))
      .withStartupTimeout(120_000)
      .start();
    started.unshift(emu);
    const toxi = await new tc.GenericContainer(toxiSvc.image).withCommand(toxiSvc.command!).withNetwork(network).withExposedPorts(8474, PROXY_LISTEN_PORT).start();
    started.unshift(toxi);
    const api = new ToxiproxyApi(`http://${toxi.getHost()}:${toxi.getMappedPort(8474)}`);
    await api.client.createProxy({ name: PROXY_NAME, listen: `0.0.0.0:${PROXY_LISTEN_PORT}`, upstream: `pubsub-emulator:${EMULATOR_PORT}`, enabled: true });
    const endpoint: PubsubEndpoint = {
      projectId: settings.projectId,
      emulatorHost: `${toxi.getHost()}:${toxi.getMappedPort(PROXY_LISTEN_PORT)}`,
      adminHost: `${emu.getHost()}:${emu.getMappedPort(EMULATOR_PORT)}`,
    };
    const deadline = Date.now() + 30_000;
    while (!(await isListening(toxi.getMappedPort(PROXY_LISTEN_PORT), toxi.getHost()))) {
      if (Date.now() > deadline) throw new Error('the Toxiproxy proxy does not listen');
      await sleep(250);
    }
    ctx.log(`pubsub (containers): gcloud emulator through ${endpoint.emulatorHost}`);
    return {
      broker: 'pubsub',
      runtime: 'containers',
      endpoint: endpoint as unknown as Record<string, unknown>,
      versions: { emulator: EMULATOR_IMAGE, '@google-cloud/pubsub': clientVersion(), toxiproxy: TOXIPROXY_VERSION },
      emulator: { name: 'gcloud Pub/Sub emulator', version: EMULATOR_IMAGE.split(':')[1]!, notes: 'Google\'s Pub/Sub emulator from the gcloud CLI image; no publish-failure injection.' },
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
    throw new InfraError(`pubsub containers did not start: ${(err as Error).message}`, [], { cause: err });
  }
}
