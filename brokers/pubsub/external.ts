/**
 * The external runtime: a real Pub/Sub project (projectId from --external projectId=...,
 * GOOGLE_CLOUD_PROJECT or the scenario; credentials from Application Default Credentials:
 * GOOGLE_APPLICATION_CREDENTIALS or gcloud auth), or an emulator the user runs
 * (emulatorHost=host:port). Nothing is started on the broker side.
 *
 * The real service is passed through with no `clients` link (TLS to *.googleapis.com cannot
 * cross a plain TCP proxy without breaking the host check), so network faults are not
 * available there. A user's emulator (plaintext gRPC) gets a private Toxiproxy in front, as
 * locally, unless `proxy: false` is passed. There is no control endpoint either way.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DeployContext, ExternalSetting } from '../../harness/broker/contract.ts';
import { InfraError, InputError } from '../../harness/errors.ts';
import { onCleanup } from '../../harness/runtime/cleanup.ts';
import { freePort } from '../../harness/runtime/ports.ts';
import { startToxiproxy, TOXIPROXY_VERSION } from '../../harness/net/toxiproxy.ts';
import { clientVersion, errMessage, pubsubClient, type PubsubEndpoint } from './connection.ts';
import { PROXY_NAME, type PubsubDeployment } from './local.ts';
import { refuseConvoyEmulator, type PubsubSettings } from './settings.ts';

/** The settings externalEndpoint and deployExternal read; docs/external.md lists them. */
export const EXTERNAL_SETTINGS: readonly ExternalSetting[] = [
  { key: 'projectId', help: 'Google Cloud project (else GOOGLE_CLOUD_PROJECT)' },
  { key: 'emulatorHost', help: 'host:port of an emulator you run', scenarioField: true },
  { key: 'proxy', help: 'false: no Toxiproxy in front of an emulator' },
];

export function externalEndpoint(ext: Record<string, unknown>, settings: PubsubSettings): PubsubEndpoint {
  const projectId = (ext.projectId ?? process.env.GOOGLE_CLOUD_PROJECT ?? (settings.projectId !== 'convoy-local' ? settings.projectId : undefined)) as string | undefined;
  if (!projectId) throw new InputError('the external Pub/Sub runtime needs a project: --external projectId=my-project, GOOGLE_CLOUD_PROJECT, or broker.projectId');
  const host = (ext.emulatorHost ?? settings.emulatorHost) as string | undefined;
  if (host !== undefined && !/^[^:/\s]+:[0-9]+$/.test(host)) throw new InputError(`emulatorHost must be host:port, got ${host}`);
  return { projectId, ...(host ? { emulatorHost: host, adminHost: host } : {}) };
}

export async function deployExternal(ctx: DeployContext, settings: PubsubSettings): Promise<PubsubDeployment> {
  refuseConvoyEmulator(settings, 'external');
  const ext = ctx.external ?? {};
  const base = externalEndpoint(ext, settings);
  const common = {
    broker: 'pubsub',
    runtime: 'external' as const,
    versions: { pubsub: base.emulatorHost ? 'external emulator' : 'Google Cloud Pub/Sub', '@google-cloud/pubsub': clientVersion(), toxiproxy: TOXIPROXY_VERSION },
    // A managed service reports no version: the endpoint's host (and project) say what was tested.
    cluster: { endpoint: base.emulatorHost ?? 'pubsub.googleapis.com', projectId: base.projectId },
    nodes: [],
    logFiles: [] as string[],
    startupMs: 0,
    reused: false,
    memory: () => undefined,
  };
  const check = async (endpoint: PubsubEndpoint) => {
    const client = pubsubClient(endpoint);
    try {
      await client.getTopics({ pageSize: 1, autoPaginate: false, timeout: 15_000 } as never);
    } catch (err) {
      throw new InfraError(`cannot reach Pub/Sub (project ${endpoint.projectId}${endpoint.emulatorHost ? ` at ${endpoint.emulatorHost}` : ''}): ${errMessage(err)}`, [], { cause: err });
    } finally {
      await client.close().catch(() => undefined);
    }
  };
  if (!base.emulatorHost || ext.proxy === false) {
    await check(base);
    return { ...common, endpoint: base as unknown as Record<string, unknown>, links: [], stop: async () => {} };
  }
  const dir = join(ctx.workDir, 'pubsub');
  mkdirSync(dir, { recursive: true });
  const toxi = await startToxiproxy({ workDir: dir, log: ctx.log });
  const unregister = onCleanup('toxiproxy for external pubsub', () => toxi.stop());
  const stop = async () => {
    unregister();
    await toxi.stop();
  };
  try {
    const proxyPort = await freePort();
    await toxi.api.createProxy(PROXY_NAME, proxyPort, base.emulatorHost);
    const endpoint: PubsubEndpoint = { ...base, emulatorHost: `127.0.0.1:${proxyPort}` };
    await check(endpoint);
    return { ...common, logFiles: [join(dir, 'toxiproxy.log')], endpoint: endpoint as unknown as Record<string, unknown>, links: [{ name: 'clients', proxies: [PROXY_NAME], toxiproxyUrl: toxi.api.url }], stop };
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
}
