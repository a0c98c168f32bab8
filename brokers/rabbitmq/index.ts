/**
 * RabbitMQ for convoy: a private node from the Debian package (local), containers, or the
 * user's broker (external); amqplib clients; three ordering topologies (settings.ts).
 */
import type { BrokerModule, BrokerSettings, DeployContext, Deployment } from '../../harness/broker/contract.ts';
import { RabbitAdmin } from './admin.ts';
import { RabbitConsumer, RabbitProducer } from './client.ts';
import { asEndpoint } from './connection.ts';
import { containerServices, deployContainers } from './containers.ts';
import { deployExternal } from './external.ts';
import { deployLocal } from './local.ts';
import { resolveSettings, settingsSchema, type RabbitSettings } from './settings.ts';

/** Settings as the module receives them: resolved already, or raw from a scenario. */
function settingsOf(s: BrokerSettings): RabbitSettings {
  return resolveSettings(s);
}

const rabbitmq: BrokerModule = {
  name: 'rabbitmq',
  settingsSchema,
  resolveSettings,
  async deploy(ctx: DeployContext, settings: BrokerSettings): Promise<Deployment> {
    const s = settingsOf(settings);
    if (ctx.runtime === 'external') return deployExternal(ctx, s);
    if (ctx.runtime === 'containers') return deployContainers(ctx, s);
    return deployLocal(ctx, s);
  },
  containerServices: (settings) => containerServices(settingsOf(settings)),
  async admin(endpoint, settings, names) {
    return new RabbitAdmin(asEndpoint(endpoint), settingsOf(settings), names);
  },
  async producer(endpoint, settings, names, options) {
    return new RabbitProducer(asEndpoint(endpoint), settingsOf(settings), names, options).connect();
  },
  async consumer(endpoint, settings, names, options) {
    return new RabbitConsumer(asEndpoint(endpoint), settingsOf(settings), names, options);
  },
};

export default rabbitmq;
export { RabbitAdmin, RabbitConsumer, RabbitProducer, resolveSettings, settingsSchema };
export type { RabbitSettings };
