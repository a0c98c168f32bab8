/**
 * Google Cloud Pub/Sub for convoy: pstest served by convoy's Go program (local), Google's
 * gcloud emulator image (containers), or a real project (external); @google-cloud/pubsub 5.x
 * clients; message ordering, ack deadline and a dead-letter policy (settings.ts).
 */
import { brokerModule } from '../../harness/broker/module.ts';
import { PubsubAdmin } from './admin.ts';
import { PubsubConsumer, PubsubProducer } from './client.ts';
import { asEndpoint } from './connection.ts';
import { containerServices, deployContainers } from './containers.ts';
import { deployExternal } from './external.ts';
import { deployLocal, provisionPstest } from './local.ts';
import { resolveSettings, settingsSchema, type PubsubSettings } from './settings.ts';

const pubsub = brokerModule({
  name: 'pubsub',
  settingsSchema,
  settings: resolveSettings,
  // Go is preinstalled where convoy runs; a missing one fails with one clear line.
  debianPackages: [],
  async provision(log) {
    provisionPstest(log);
  },
  deploy: { local: deployLocal, containers: deployContainers, external: deployExternal },
  containerServices,
  endpoint: asEndpoint,
  admin: (endpoint, settings, names) => new PubsubAdmin(endpoint, settings, names),
  // An unacked message comes back when its ack deadline passes (the subscriber stops extending
  // a lease after maxExtensionSeconds).
  redeliveryHorizonMs: (s) => s.ackDeadlineSeconds * 1000,
  producer: (endpoint, settings, names, options) => new PubsubProducer(endpoint, settings, names, options).connect(),
  consumer: (endpoint, settings, names, options) => new PubsubConsumer(endpoint, settings, names, options),
});

export default pubsub;
export { PubsubAdmin, PubsubConsumer, PubsubProducer, resolveSettings, settingsSchema };
export type { PubsubSettings };
