/**
 * SQS for convoy: ElasticMQ from Maven Central (local), the elasticmq-native image
 * (containers), or a real SQS (external); @aws-sdk/client-sqs v3 clients; standard or FIFO
 * queues with visibility timeout, deduplication and a dead-letter queue (settings.ts).
 */
import type { BrokerModule, BrokerSettings, DeployContext, Deployment } from '../../harness/broker/contract.ts';
import { SqsAdmin } from './admin.ts';
import { SqsConsumer, SqsProducer } from './client.ts';
import { asEndpoint } from './connection.ts';
import { containerServices, deployContainers } from './containers.ts';
import { deployExternal } from './external.ts';
import { deployLocal, provisionElasticMQ } from './local.ts';
import { resolveSettings, settingsSchema, type SqsSettings } from './settings.ts';

/** Settings as the module receives them: resolved already, or raw from a scenario. */
function settingsOf(s: BrokerSettings): SqsSettings {
  return resolveSettings(s);
}

const sqs: BrokerModule = {
  name: 'sqs',
  settingsSchema,
  resolveSettings,
  // Java and Maven are preinstalled where convoy runs; missing ones fail with one clear line.
  debianPackages: [],
  async provision(log) {
    provisionElasticMQ(resolveSettings({ kind: 'sqs' }).version, log);
  },
  async deploy(ctx: DeployContext, settings: BrokerSettings): Promise<Deployment> {
    const s = settingsOf(settings);
    if (ctx.runtime === 'external') return deployExternal(ctx, s);
    if (ctx.runtime === 'containers') return deployContainers(ctx, s);
    return deployLocal(ctx, s);
  },
  containerServices: (settings) => containerServices(settingsOf(settings)),
  async admin(endpoint, settings, names) {
    return new SqsAdmin(asEndpoint(endpoint), settingsOf(settings), names);
  },
  async producer(endpoint, settings, names, options) {
    return new SqsProducer(asEndpoint(endpoint), settingsOf(settings), names, options).connect();
  },
  async consumer(endpoint, settings, names, options) {
    return new SqsConsumer(asEndpoint(endpoint), settingsOf(settings), names, options);
  },
};

export default sqs;
export { SqsAdmin, SqsConsumer, SqsProducer, resolveSettings, settingsSchema };
export type { SqsSettings };
