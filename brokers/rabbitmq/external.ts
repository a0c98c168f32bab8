/**
 * The external runtime: the user's broker, given as an AMQP URL (amqp:// or amqps://, with
 * user, password and vhost) and optional TLS files. Nothing is started on the broker side;
 * a private Toxiproxy still sits in front of it so network faults (which hurt only this run's
 * client traffic) work, unless `proxy: false` is passed. For amqps the TLS server name stays
 * the broker's host name, so certificate checks still pass through the proxy.
 */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { DeployContext, ExternalSetting } from '../../harness/broker/contract.ts';
import { InfraError, InputError } from '../../harness/errors.ts';
import { onCleanup } from '../../harness/runtime/cleanup.ts';
import { freePort } from '../../harness/runtime/ports.ts';
import { startToxiproxy, TOXIPROXY_VERSION } from '../../harness/net/toxiproxy.ts';
import { checkPrecreatedQueue } from './admin.ts';
import { openConnection, redact, type RabbitEndpoint } from './connection.ts';
import { PROXY_NAME, type RabbitDeployment } from './local.ts';
import type { RabbitSettings } from './settings.ts';

/** The settings deployExternal reads; docs/external.md lists them. */
export const EXTERNAL_SETTINGS: readonly ExternalSetting[] = [
  { key: 'url', help: 'amqp[s]://user:password@host:port/vhost', secret: true, scenarioField: true },
  { key: 'amqpUrl', help: 'url', aliasOf: 'url', secret: true },
  { key: 'tls.ca', help: 'CA certificate file' },
  { key: 'tls.cert', help: 'client certificate file' },
  { key: 'tls.key', help: 'client private key file' },
  { key: 'tls.passphrase', help: 'the private key\'s passphrase', secret: true },
  { key: 'tls.servername', help: 'TLS server name (default the URL\'s host)' },
  { key: 'tls.rejectUnauthorized', help: 'false: accept any server certificate' },
  { key: 'proxy', help: 'false: no Toxiproxy in front (no network faults)' },
  { key: 'queue.name', help: 'a queue made beforehand: convoy declares and deletes nothing (one run at a time per queue)' },
];

/**
 * The queue made beforehand (`queue.name`), or undefined. Given the scenario's settings, refuses
 * what such a queue cannot serve: lanes and dead letters need exchanges and queues convoy
 * declares and binds itself, which a user without configure rights may not do.
 */
export function precreatedQueue(ext: Record<string, unknown> | undefined, settings?: RabbitSettings): string | undefined {
  if (ext?.queue === undefined) return undefined;
  const name = (ext.queue as Record<string, unknown> | undefined)?.name;
  if (typeof name !== 'string' || name === '' || name.length > 255 || name.startsWith('amq.')) {
    throw new InputError(`external RabbitMQ: queue.name must be a queue's name (not amq.*, at most 255 characters), got ${JSON.stringify(name)}`);
  }
  if (settings?.topology === 'hash-lanes') throw new InputError(`external RabbitMQ: queue.name ${name} with topology hash-lanes: the lanes need a consistent hash exchange convoy declares and binds itself; use topology single-active or competing, or leave queue.name out (and grant configure on ^convoy-.*)`);
  if (settings?.deadLetter.enabled) throw new InputError(`external RabbitMQ: queue.name ${name} with broker.deadLetter: dead letters need exchanges and queues convoy declares itself; leave broker.deadLetter out, or leave queue.name out (and grant configure on ^convoy-.*)`);
  return name;
}

/**
 * checkExternal: the queue.name given, and, with a scenario's settings, what the queue can serve
 * and whether it is there and free (asked of the broker, so a missing queue is bad input before
 * the run). A broker that cannot be reached is left to the run, which says so as it deploys.
 */
export async function checkExternal(ext: Record<string, unknown>, settings?: RabbitSettings): Promise<void> {
  const queue = precreatedQueue(ext, settings);
  const url = (ext.url ?? ext.amqpUrl ?? settings?.url) as string | undefined;
  if (!queue || !settings || !url) return;
  const tls = { ...settings.tls, ...(ext.tls as RabbitSettings['tls'] | undefined) };
  let conn: Awaited<ReturnType<typeof openConnection>>;
  try {
    conn = await openConnection({ url, ...(Object.keys(tls).length ? { tls } : {}) }, { name: 'convoy-check', heartbeatSeconds: 30 });
  } catch {
    return;
  }
  try {
    const ch = await conn.createChannel();
    ch.on('error', () => {});
    await checkPrecreatedQueue(ch, queue);
  } finally {
    await conn.close().catch(() => {});
  }
}

export async function deployExternal(ctx: DeployContext, settings: RabbitSettings): Promise<RabbitDeployment> {
  const ext = ctx.external ?? {};
  const raw = (ext.url ?? ext.amqpUrl ?? settings.url) as string | undefined;
  if (!raw) throw new InputError('the external runtime needs the broker\'s AMQP URL: --external url=amqps://user:${env:AMQP_PASSWORD}@host:5671/vhost, a --connection file, or CONVOY_EXTERNAL_URL');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InputError(`not an AMQP URL: ${redact(raw)}`);
  }
  if (url.protocol !== 'amqp:' && url.protocol !== 'amqps:') throw new InputError(`not an AMQP URL (amqp:// or amqps://): ${redact(raw)}`);
  const tls = { ...settings.tls, ...(ext.tls as RabbitSettings['tls'] | undefined) };
  const hasTls = url.protocol === 'amqps:' || Object.keys(tls).length > 0;
  const queue = precreatedQueue(ext, settings);
  const base: RabbitEndpoint = { url: raw, adminUrl: raw, ...(hasTls ? { tls } : {}), ...(queue ? { queue, runTagged: true } : {}) };
  const common = {
    broker: 'rabbitmq',
    runtime: 'external' as const,
    versions: { rabbitmq: 'external', toxiproxy: TOXIPROXY_VERSION },
    nodes: [],
    logFiles: [] as string[],
    startupMs: 0,
    reused: false,
    memory: () => undefined,
  };
  if (ext.proxy === false) {
    const cluster = await serverFacts(base, raw);
    return { ...common, versions: { ...common.versions, ...serverVersions(cluster) }, cluster, endpoint: base as unknown as Record<string, unknown>, links: [], stop: async () => {} };
  }
  const dir = join(ctx.workDir, 'rabbitmq');
  mkdirSync(dir, { recursive: true });
  const toxi = await startToxiproxy({ workDir: dir, log: ctx.log });
  const unregister = onCleanup('toxiproxy for external rabbitmq', () => toxi.stop());
  const stop = async () => {
    unregister();
    await toxi.stop();
  };
  try {
    const port = url.port ? Number(url.port) : url.protocol === 'amqps:' ? 5671 : 5672;
    const proxyPort = await freePort();
    await toxi.api.createProxy(PROXY_NAME, proxyPort, `${url.hostname}:${port}`);
    const proxied = new URL(raw);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxyPort);
    const endpoint: RabbitEndpoint = {
      ...base,
      url: proxied.toString(),
      ...(hasTls ? { tls: { servername: url.hostname, ...tls } } : {}),
    };
    const cluster = await serverFacts(endpoint, raw, ' through the proxy');
    return {
      ...common,
      versions: { ...common.versions, ...serverVersions(cluster) },
      cluster,
      logFiles: [join(dir, 'toxiproxy.log')],
      endpoint: endpoint as unknown as Record<string, unknown>,
      links: [{ name: 'clients', proxies: [PROXY_NAME], toxiproxyUrl: toxi.api.url }],
      stop,
    };
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
}

/**
 * What the broker says about itself on connect (AMQP's server properties: product, version,
 * platform, cluster name), for the result's versions.cluster; opening the session also checks
 * the URL and credentials before the run.
 */
async function serverFacts(endpoint: RabbitEndpoint, raw: string, how = ''): Promise<Record<string, unknown>> {
  let props: Record<string, unknown>;
  try {
    const conn = await openConnection(endpoint, { name: 'convoy-check', heartbeatSeconds: 30 });
    props = ((conn as unknown as { connection: { serverProperties?: Record<string, unknown> } }).connection.serverProperties ?? {}) as Record<string, unknown>;
    await conn.close().catch(() => {});
  } catch (err) {
    throw new InfraError(`cannot open an AMQP session with ${redact(raw)}${how}: ${(err as Error).message}`, [], { cause: err });
  }
  const serverProperties = Object.fromEntries(['product', 'version', 'platform', 'cluster_name'].filter((k) => typeof props[k] === 'string').map((k) => [k, props[k]]));
  return { serverProperties, endpoint: new URL(raw).host };
}

function serverVersions(cluster: Record<string, unknown>): Record<string, string> {
  const p = cluster.serverProperties as Record<string, string>;
  return { ...(p.version ? { server: `${p.product ?? 'RabbitMQ'} ${p.version}` } : {}), ...(p.cluster_name ? { cluster_name: p.cluster_name } : {}) };
}
