/**
 * SQS for convoy: ElasticMQ from Maven Central (local), the elasticmq-native image
 * (containers), or a real SQS (external); @aws-sdk/client-sqs v3 clients; standard or FIFO
 * queues with visibility timeout, deduplication and a dead-letter queue (settings.ts).
 */
import { brokerModule } from '../../harness/broker/module.ts';
import { TOXIPROXY } from '../../harness/net/toxiproxy.ts';
import { capabilities } from './capabilities.ts';
import { SqsAdmin } from './admin.ts';
import { SqsConsumer, SqsProducer } from './client.ts';
import { asEndpoint } from './connection.ts';
import { containerServices, deployContainers } from './containers.ts';
import { deployExternal, EXTERNAL_SETTINGS } from './external.ts';
import { existsSync } from 'node:fs';
import { JAVA, MAVEN } from '../../harness/runtime/requirements.ts';
import { deployLocal, elasticmqLibDir, provisionElasticMQ } from './local.ts';
import { resolveSettings, settingsSchema, type SqsSettings } from './settings.ts';
import { sqsServiceLink } from './service-link.ts';

const sqs = brokerModule({
  name: 'sqs',
  title: 'SQS',
  settingsSchema,
  settings: resolveSettings,
  requirements: [
    TOXIPROXY,
    { requirement: JAVA, purpose: 'to run ElasticMQ' },
    { requirement: MAVEN, purpose: 'to collect ElasticMQ from Maven Central' },
  ],
  cached: () => {
    const { version } = resolveSettings({ kind: 'sqs' });
    return [{ what: `ElasticMQ ${version} jars`, path: elasticmqLibDir(version), present: existsSync(elasticmqLibDir(version)) }];
  },
  async provision(log) {
    provisionElasticMQ(resolveSettings({ kind: 'sqs' }).version, log);
  },
  deploy: { local: deployLocal, containers: deployContainers, external: deployExternal },
  externalSettings: EXTERNAL_SETTINGS,
  containerServices,
  capabilities,
  endpoint: asEndpoint,
  admin: (endpoint, settings, names) => new SqsAdmin(endpoint, settings, names),
  // A received message that is not deleted comes back when its visibility timeout ends.
  redeliveryHorizonMs: (s) => s.visibilityTimeoutSeconds * 1000,
  redeliveryHorizonSetting: () => 'broker.visibilityTimeoutSeconds',
  producer: (endpoint, settings, names, options) => new SqsProducer(endpoint, settings, names, options).connect(),
  consumer: (endpoint, settings, names, options) => new SqsConsumer(endpoint, settings, names, options),
  service: sqsServiceLink,
});

export default sqs;
export { SqsAdmin, SqsConsumer, SqsProducer, resolveSettings, settingsSchema };
export type { SqsSettings };
