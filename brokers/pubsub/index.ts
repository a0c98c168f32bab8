/**
 * Google Cloud Pub/Sub for convoy: pstest served by convoy's Go program (local), Google's
 * gcloud emulator image (containers), or a real project (external); @google-cloud/pubsub 5.x
 * clients; message ordering, ack deadline and a dead-letter policy (settings.ts).
 */
import { brokerModule } from '../../harness/broker/module.ts';
import { TOXIPROXY } from '../../harness/net/toxiproxy.ts';
import { capabilities } from './capabilities.ts';
import { PubsubAdmin } from './admin.ts';
import { PubsubConsumer, PubsubProducer } from './client.ts';
import { asEndpoint } from './connection.ts';
import { containerServices, deployContainers } from './containers.ts';
import { deployExternal, EXTERNAL_SETTINGS } from './external.ts';
import { existsSync } from 'node:fs';
import { GO } from '../../harness/runtime/requirements.ts';
import { deployLocal, provisionPstest, pstestBinary } from './local.ts';
import { deployConvoyEmulator } from './emulator-local.ts';
import { resolveSettings, settingsSchema, type PubsubSettings } from './settings.ts';
import { pubsubServiceLink } from './service-link.ts';

const pubsub = brokerModule({
  name: 'pubsub',
  title: 'Pub/Sub',
  settingsSchema,
  settings: resolveSettings,
  requirements: [
    TOXIPROXY,
    { requirement: GO, purpose: 'to build the Pub/Sub emulator (pstest-server)' },
  ],
  cached: () => [{ what: 'pstest-server, the Pub/Sub emulator (built from brokers/pubsub/pstest-server)', path: pstestBinary(), present: existsSync(pstestBinary()) }],
  async provision(log) {
    provisionPstest(log);
  },
  // broker.emulator: convoy starts convoy's own emulator (emulator-local.ts), else pstest.
  deploy: { local: (ctx, s) => (s.emulator === 'convoy' ? deployConvoyEmulator(ctx, s) : deployLocal(ctx, s)), containers: deployContainers, external: deployExternal },
  externalSettings: EXTERNAL_SETTINGS,
  containerServices,
  capabilities,
  endpoint: asEndpoint,
  admin: (endpoint, settings, names) => new PubsubAdmin(endpoint, settings, names),
  // An unacked message comes back when its ack deadline passes (the subscriber stops extending
  // a lease after maxExtensionSeconds).
  redeliveryHorizonMs: (s) => s.ackDeadlineSeconds * 1000,
  redeliveryHorizonSetting: () => 'broker.ackDeadlineSeconds',
  producer: (endpoint, settings, names, options) => new PubsubProducer(endpoint, settings, names, options).connect(),
  consumer: (endpoint, settings, names, options) => new PubsubConsumer(endpoint, settings, names, options),
  service: pubsubServiceLink,
});

export default pubsub;
export { PubsubAdmin, PubsubConsumer, PubsubProducer, resolveSettings, settingsSchema };
export type { PubsubSettings };
