/**
 * Apache Kafka 4.x for convoy: KRaft brokers started from Maven Central jars (local), the
 * same topology as containers, or a cluster the user names (external); kafkajs or
 * @confluentinc/kafka-javascript clients. See README.md in this folder.
 */
import type { BrokerSettings, DeployContext, Deployment, Endpoint } from '../../harness/broker/contract.ts';
import { brokerModule } from '../../harness/broker/module.ts';
import { capabilities } from './capabilities.ts';
import { InfraError, InputError } from '../../harness/errors.ts';
import { sleep } from '../../harness/clock.ts';
import { kafkaAdmin } from './admin.ts';
import { confluentConsumer, confluentProducer } from './client-confluent.ts';
import { confluentLayerConsumer } from './client-confluent-kafkajs-layer.ts';
import { kafkajsConsumer, kafkajsProducer } from './client-kafkajs.ts';
import { platformaticConsumer, platformaticProducer } from './client-platformatic.ts';
import { CLIENT_PACKAGES } from './client-defaults.ts';
import { javaClientCached, javaClientCommand, javaClientVersion } from './client-java.ts';
import { insertRequestProxy } from './request-proxy.ts';
import { join } from 'node:path';
import { referenceClientCommand, remoteConsumer, remoteProducer } from '../../harness/client-protocol/remote-clients.ts';
import { containerServices, deployContainers } from './containers.ts';
import { endpointFromExternal, EXTERNAL_SETTINGS, javaConnection, javaEndpoint, parseEndpoint, pem, toEndpoint, type KafkaEndpoint } from './endpoint.ts';
import { brokerApiVersions } from './api-versions.ts';
import { deployLocal } from './local.ts';
import { describeCluster, type ClusterView } from './probe.ts';
import { ensureBootstrapTemplate, ensureCdsArchive } from './jvm.ts';
import { cachedItems, knownDefaultVersion, provision } from './provision.ts';
import { KAFKA_NEEDS } from './requirements.ts';
import { kafkaServiceLink } from './service-link.ts';
import { asKafkaSettings, resolveSettings, settingsSchema, type KafkaSettings } from './settings.ts';

async function deployExternal(ctx: DeployContext, settings: KafkaSettings): Promise<Deployment> {
  const endpoint = endpointFromExternal(ctx.external);
  // Refused here, in one line, rather than in every client process: what the Java client cannot do.
  if (settings.client === 'java') javaConnection(endpoint);
  let lastErr: unknown;
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    try {
      const view = await describeCluster(endpoint, 5_000);
      if (!settings.topic.clusterDefaults && settings.topic.replicationFactor > view.brokers.length) {
        throw new InputError(`broker.topic.replicationFactor ${settings.topic.replicationFactor} is more than the ${view.brokers.length} broker(s) of the external cluster`);
      }
      const cluster = await clusterFacts(endpoint, view, ctx.log);
      const level = (cluster.features as Record<string, number> | undefined)?.['metadata.version'];
      ctx.log(`external Kafka: cluster ${view.clusterId}, ${view.brokers.length} broker(s)${level !== undefined ? `, metadata.version ${level}` : ''}`);
      return {
        broker: 'kafka',
        runtime: 'external',
        endpoint: toEndpoint(endpoint),
        versions: { kafka: 'external', clusterId: view.clusterId, brokers: String(view.brokers.length), ...(level !== undefined ? { 'metadata.version': String(level) } : {}) },
        cluster,
        links: [],
        nodes: [],
        logFiles: [],
        stop: async () => {},
      };
    } catch (err) {
      if (err instanceof InputError) throw err;
      lastErr = err;
      await sleep(500);
    }
  }
  throw new InfraError(`external Kafka at ${endpoint.bootstrapServers.join(',')} does not answer: ${(lastErr as Error)?.message}`, [], { cause: lastErr });
}

/**
 * What the cluster says about itself: its id, broker count, and each broker's ApiVersions
 * answer, merged (the lowest max and highest min per API: what every broker serves) with the
 * finalized features. A broker that does not answer ApiVersions leaves them out, said in the log.
 */
async function clusterFacts(endpoint: KafkaEndpoint, view: ClusterView, log: (l: string) => void): Promise<Record<string, unknown>> {
  const facts: Record<string, unknown> = { clusterId: view.clusterId, brokers: view.brokers.length };
  const tls = endpoint.ssl === true ? true : endpoint.ssl ? { ...(endpoint.ssl.ca ? { ca: pem(endpoint.ssl.ca) } : {}), rejectUnauthorized: endpoint.ssl.rejectUnauthorized ?? true } : false;
  try {
    const answers = await Promise.all(view.brokers.map((b) => brokerApiVersions(`${b.host}:${b.port}`, tls)));
    const apis: Record<number, [number, number]> = {};
    for (const a of answers) {
      for (const [key, [min, max]] of Object.entries(a.apis)) {
        const had = apis[Number(key)];
        apis[Number(key)] = had ? [Math.max(had[0], min), Math.min(had[1], max)] : [min, max];
      }
    }
    facts.apiVersions = apis;
    facts.features = answers[0]?.features ?? {};
  } catch (err) {
    log(`external Kafka: ApiVersions not recorded: ${(err as Error).message}`);
  }
  return facts;
}

/** The client process's command line, when the client runs in a process of its own. */
function processCommand(s: KafkaSettings, log: (l: string) => void): string[] | undefined {
  if (s.client === 'java') return javaClientCommand(s, log);
  if (s.clientProcess) return s.clientProcess.command ?? referenceClientCommand();
  return undefined;
}

/** The endpoint a client process is given: the Java client's with its connection properties made. */
function processEndpoint(e: KafkaEndpoint, s: KafkaSettings): Endpoint {
  return toEndpoint(s.client === 'java' ? javaEndpoint(e) : e);
}

/** The deployment with the request proxy on its client links, taken out again by its stop(). */
async function withRequestProxy(ctx: DeployContext, s: KafkaSettings, dep: Deployment): Promise<Deployment> {
  const clients = dep.links.find((l) => l.name === 'clients');
  if (!clients) throw new InfraError('the Kafka deployment has no clients link for the request proxy');
  const version = dep.versions.kafka && /^4\./.test(dep.versions.kafka) ? dep.versions.kafka : javaClientVersion(s, ctx.log);
  let proxy;
  try {
    proxy = await insertRequestProxy({
      version,
      proxies: clients.proxies,
      toxiproxyUrl: clients.toxiproxyUrl,
      adminBootstrap: parseEndpoint(dep.endpoint).adminBootstrapServers ?? parseEndpoint(dep.endpoint).bootstrapServers,
      workDir: ctx.workDir,
      log: ctx.log,
    });
  } catch (err) {
    await dep.stop();
    throw err;
  }
  const p = proxy;
  return {
    ...dep,
    logFiles: [...dep.logFiles, join(ctx.workDir, 'request-proxy.log')],
    requestProxy: { controlUrl: p.controlUrl, running: () => p.running(), tail: () => p.tail() },
    async stop() {
      await p.remove();
      await dep.stop();
    },
  };
}

function prepareClient(s: KafkaSettings, log: (l: string) => void): void {
  if (s.client === 'java') javaClientCommand(s, log);
}

const kafka = brokerModule({
  name: 'kafka',
  title: 'Kafka',
  settingsSchema,
  externalSettings: EXTERNAL_SETTINGS,
  checkExternal(external, settings) {
    const endpoint = endpointFromExternal(external);
    if (settings?.client === 'java') javaConnection(endpoint);
  },
  requirements: KAFKA_NEEDS,
  cached: () => [...cachedItems(), ...javaClientCached()],
  settings: asKafkaSettings,
  resolveSettings(settings: BrokerSettings): BrokerSettings {
    const s = resolveSettings(settings);
    // Record the version that will run when it is already known (the cache remembers it).
    if (s.version === 'latest') s.version = knownDefaultVersion() ?? 'latest';
    return s;
  },
  async provision(log: (line: string) => void): Promise<void> {
    const inst = provision(undefined, { tools: true, log });
    await ensureCdsArchive(inst, log);
    await ensureBootstrapTemplate(inst, log);
  },
  // client java: its jars and classes are made before the brokers start (a missing JDK fails fast).
  deploy: {
    external: async (ctx, s) => (prepareClient(s, ctx.log), deployExternal(ctx, s)),
    containers: async (ctx, s) => (prepareClient(s, ctx.log), deployContainers(ctx, s)),
    async local(ctx, s) {
      if (s.topic.replicationFactor > s.nodes) {
        throw new InputError(`broker.topic.replicationFactor ${s.topic.replicationFactor} needs at least that many nodes (nodes: ${s.nodes})`);
      }
      prepareClient(s, ctx.log);
      const dep = await deployLocal(ctx, s);
      return s.requestProxy ? withRequestProxy(ctx, s, dep) : dep;
    },
  },
  containerServices,
  capabilities,
  service: kafkaServiceLink,
  endpoint: parseEndpoint,
  admin: kafkaAdmin,
  // A member that stops polling keeps its partitions this long (librdkafka's max.poll.interval.ms;
  // kafkajs has none and is evicted after the session timeout); a dead member, the session timeout.
  // What the run used; never provisions anything (analysis may run on another machine).
  processClientVersions: (s): Record<string, string> =>
    s.client === 'java' ? { 'kafka-clients': s.javaClient?.version ?? (/^4\./.test(s.version) ? s.version : 'the newest 4.x') } : {},
  clientInUse: (s) => CLIENT_PACKAGES[s.client] ?? 'kafkajs',
  // A share group's record goes to another member once its lock expires, dead member or not.
  redeliveryHorizonMs: (s) => s.consumer.share?.lockDurationMs ?? Math.max(s.consumer.sessionTimeoutMs, s.consumer.maxPollIntervalMs ?? 0),
  redeliveryHorizonSetting: (s) =>
    s.consumer.share ? 'broker.consumer.share.lockDurationMs' : (s.consumer.maxPollIntervalMs ?? 0) > s.consumer.sessionTimeoutMs ? 'broker.consumer.maxPollIntervalMs' : 'broker.consumer.sessionTimeoutMs',
  consumerNames: (s) => (Array.isArray(s.consumer.staticMembership) ? [{ path: 'broker.consumer.staticMembership', names: s.consumer.staticMembership }] : []),
  // With clientProcess, or client java, the client runs in a process of its own behind the client protocol.
  producer: (e, s, names, options) => {
    const command = processCommand(s, options.log);
    if (command) return remoteProducer(command, processEndpoint(e, s), s, names, options);
    if (s.client === 'platformatic') return platformaticProducer(e, s, names, options);
    return s.client === 'confluent' ? confluentProducer(e, s, names, options) : kafkajsProducer(e, s, names, options);
  },
  consumer: (e, s, names, options) => {
    const command = processCommand(s, options.log);
    if (command) return remoteConsumer(command, processEndpoint(e, s), s, names, options);
    if (s.client === 'platformatic') return platformaticConsumer(e, s, names, options);
    if (s.client !== 'confluent') return kafkajsConsumer(e, s, names, options);
    return s.consumer.api === 'kafkajs-layer' ? confluentLayerConsumer(e, s, names, options) : confluentConsumer(e, s, names, options);
  },
});

export default kafka;
