/**
 * SQS for convoy: ElasticMQ from Maven Central (local), the elasticmq-native image
 * (containers), or a real SQS (external); @aws-sdk/client-sqs v3 clients; standard or FIFO
 * queues with visibility timeout, deduplication and a dead-letter queue (settings.ts).
 */
import { brokerModule } from '../../harness/broker/module.ts';
import { SqsAdmin } from './admin.ts';
import { SqsConsumer, SqsProducer } from './client.ts';
import { asEndpoint } from './connection.ts';
import { containerServices, deployContainers } from './containers.ts';
import { deployExternal } from './external.ts';
import { deployLocal, provisionElasticMQ } from './local.ts';
import { resolveSettings, settingsSchema, type SqsSettings } from './settings.ts';

const sqs = brokerModule({
  name: 'sqs',
  settingsSchema,
  settings: resolveSettings,
  // Java and Maven are preinstalled where convoy runs; missing ones fail with one clear line.
  debianPackages: [],
  async provision(log) {
    provisionElasticMQ(resolveSettings({ kind: 'sqs' }).version, log);
  },
  deploy: { local: deployLocal, containers: deployContainers, external: deployExternal },
  containerServices,
  endpoint: asEndpoint,
  admin: (endpoint, settings, names) => new SqsAdmin(endpoint, settings, names),
  // A received message that is not deleted comes back when its visibility timeout ends.
  redeliveryHorizonMs: (s) => s.visibilityTimeoutSeconds * 1000,
  producer: (endpoint, settings, names, options) => new SqsProducer(endpoint, settings, names, options).connect(),
  consumer: (endpoint, settings, names, options) => new SqsConsumer(endpoint, settings, names, options),
});

export default sqs;
export { SqsAdmin, SqsConsumer, SqsProducer, resolveSettings, settingsSchema };
export type { SqsSettings };
