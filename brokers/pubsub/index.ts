/**
 * Google Cloud Pub/Sub for convoy: pstest served by convoy's Go program (local), Google's
 * gcloud emulator image (containers), or a real project (external); @google-cloud/pubsub 5.x
 * clients; message ordering, ack deadline and a dead-letter policy (settings.ts).
 */
import type { BrokerModule, BrokerSettings, DeployContext, Deployment } from '../../harness/broker/contract.ts';
import { PubsubAdmin } from './admin.ts';
import { PubsubConsumer, PubsubProducer } from './client.ts';
import { asEndpoint } from './connection.ts';
import { containerServices, deployContainers } from './containers.ts';
import { deployExternal } from './external.ts';
import { deployLocal, provisionPstest } from './local.ts';
import { resolveSettings, settingsSchema, type PubsubSettings } from './settings.ts';

/** Settings as the module receives them: resolved already, or raw from a scenario. */
function settingsOf(s: BrokerSettings): PubsubSettings {
  return resolveSettings(s);
}

const pubsub: BrokerModule = {
  name: 'pubsub',
  settingsSchema,
  resolveSettings,
  // Go is preinstalled where convoy runs; a missing one fails with one clear line.
  debianPackages: [],
  async provision(log) {
    provisionPstest(log);
  },
  async deploy(ctx: DeployContext, settings: BrokerSettings): Promise<Deployment> {
    const s = settingsOf(settings);
    if (ctx.runtime === 'external') return deployExternal(ctx, s);
    if (ctx.runtime === 'containers') return deployContainers(ctx, s);
    return deployLocal(ctx, s);
  },
  containerServices: (settings) => containerServices(settingsOf(settings)),
  async admin(endpoint, settings, names) {
    return new PubsubAdmin(asEndpoint(endpoint), settingsOf(settings), names);
  },
  async producer(endpoint, settings, names, options) {
    return new PubsubProducer(asEndpoint(endpoint), settingsOf(settings), names, options).connect();
  },
  async consumer(endpoint, settings, names, options) {
    return new PubsubConsumer(asEndpoint(endpoint), settingsOf(settings), names, options);
  },
};

export default pubsub;
export { PubsubAdmin, PubsubConsumer, PubsubProducer, resolveSettings, settingsSchema };
export type { PubsubSettings };
