/**
 * The external runtime: a real SQS (or any SQS-compatible endpoint) from the user's config:
 * region (required), endpoint (optional, default the region's AWS endpoint) and credentials
 * (optional: accessKeyId/secretAccessKey[/sessionToken]; default the SDK's chain: AWS_* env
 * vars, profile, instance role). Nothing is started on the broker side.
 *
 * An https endpoint (real AWS) is passed through with no `clients` link: a plain TCP proxy in
 * the path would break the TLS host check and the signed Host header, so network faults are
 * not available there. A plain http endpoint (a user's own ElasticMQ or LocalStack) gets a
 * private Toxiproxy in front, as locally, unless `proxy: false` is passed.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DeployContext, ExternalSetting } from '../../harness/broker/contract.ts';
import { InfraError, InputError } from '../../harness/errors.ts';
import { onCleanup } from '../../harness/runtime/cleanup.ts';
import { freePort } from '../../harness/runtime/ports.ts';
import { startToxiproxy, TOXIPROXY_VERSION } from '../../harness/net/toxiproxy.ts';
import { ListQueuesCommand } from '@aws-sdk/client-sqs';
import { errMessage, sqsClient, type SqsEndpoint } from './connection.ts';
import { PROXY_NAME, sdkVersion, type SqsDeployment } from './local.ts';
import type { SqsSettings } from './settings.ts';

/** The settings externalEndpoint and deployExternal read; docs/external.md lists them. */
export const EXTERNAL_SETTINGS: readonly ExternalSetting[] = [
  { key: 'region', help: 'AWS region (else broker.region or AWS_REGION)' },
  { key: 'endpoint', help: 'http(s) endpoint (default the region\'s AWS one)', scenarioField: true },
  { key: 'accessKeyId', help: 'access key id (default the AWS SDK\'s chain)' },
  { key: 'secretAccessKey', help: 'secret access key', secret: true },
  { key: 'sessionToken', help: 'session token', secret: true },
  { key: 'proxy', help: 'false: no Toxiproxy in front of an http endpoint' },
];

export function externalEndpoint(ext: Record<string, unknown>, settings: SqsSettings): SqsEndpoint {
  const region = (ext.region ?? settings.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION) as string | undefined;
  if (!region) throw new InputError('the external SQS runtime needs a region: broker.region in the scenario, --external region=eu-west-1, or AWS_REGION');
  const url = (ext.endpoint ?? settings.endpoint) as string | undefined;
  if (url !== undefined && !/^https?:\/\//.test(url)) throw new InputError(`not an http(s) SQS endpoint: ${url}`);
  const endpoint: SqsEndpoint = { region, ...(url ? { url, adminUrl: url } : {}) };
  const id = ext.accessKeyId as string | undefined;
  const secret = ext.secretAccessKey as string | undefined;
  if (id || secret) {
    if (!id || !secret) throw new InputError('external SQS credentials need both accessKeyId and secretAccessKey');
    endpoint.credentials = { accessKeyId: id, secretAccessKey: secret, ...(ext.sessionToken ? { sessionToken: String(ext.sessionToken) } : {}) };
  }
  return endpoint;
}

export async function deployExternal(ctx: DeployContext, settings: SqsSettings): Promise<SqsDeployment> {
  const ext = ctx.external ?? {};
  const base = externalEndpoint(ext, settings);
  const common = {
    broker: 'sqs',
    runtime: 'external' as const,
    versions: { sqs: 'external', '@aws-sdk/client-sqs': sdkVersion(), toxiproxy: TOXIPROXY_VERSION },
    // A managed service reports no version: the endpoint's host says what was tested.
    cluster: { endpoint: base.url ? new URL(base.url).host : `sqs.${base.region}.amazonaws.com` },
    nodes: [],
    logFiles: [] as string[],
    startupMs: 0,
    reused: false,
    memory: () => undefined,
  };
  const check = async (endpoint: SqsEndpoint) => {
    const client = sqsClient(endpoint, settings);
    try {
      await client.send(new ListQueuesCommand({ MaxResults: 1 }));
    } catch (err) {
      throw new InfraError(`cannot reach SQS (${endpoint.url ?? `region ${endpoint.region}`}): ${errMessage(err)}`, [], { cause: err });
    } finally {
      client.destroy();
    }
  };
  if (!base.url?.startsWith('http://') || ext.proxy === false) {
    await check(base);
    return { ...common, endpoint: base as unknown as Record<string, unknown>, links: [], stop: async () => {} };
  }
  const dir = join(ctx.workDir, 'sqs');
  mkdirSync(dir, { recursive: true });
  const toxi = await startToxiproxy({ workDir: dir, log: ctx.log });
  const unregister = onCleanup('toxiproxy for external sqs', () => toxi.stop());
  const stop = async () => {
    unregister();
    await toxi.stop();
  };
  try {
    const upstream = new URL(base.url);
    const proxyPort = await freePort();
    await toxi.api.createProxy(PROXY_NAME, proxyPort, `${upstream.hostname}:${upstream.port || 80}`);
    const endpoint: SqsEndpoint = { ...base, url: `http://127.0.0.1:${proxyPort}` };
    await check(endpoint);
    return { ...common, logFiles: [join(dir, 'toxiproxy.log')], endpoint: endpoint as unknown as Record<string, unknown>, links: [{ name: 'clients', proxies: [PROXY_NAME], toxiproxyUrl: toxi.api.url }], stop };
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
}
