/**
 * RabbitMQ for convoy: a private node from the Debian package (local), containers, or the
 * user's broker (external); amqplib clients; three ordering topologies (settings.ts).
 */
import { brokerModule } from '../../harness/broker/module.ts';
import { InputError } from '../../harness/errors.ts';
import { TOXIPROXY } from '../../harness/net/toxiproxy.ts';
import { capabilities } from './capabilities.ts';
import { RabbitAdmin } from './admin.ts';
import { RabbitConsumer, RabbitProducer } from './client.ts';
import { asEndpoint } from './connection.ts';
import { containerServices, deployContainers } from './containers.ts';
import { checkExternal, deployExternal, EXTERNAL_SETTINGS } from './external.ts';
import { deployLocal } from './local.ts';
import { deployCluster } from './cluster.ts';
import { RABBITMQ_SERVER } from './requirements.ts';
import { resolveSettings, settingsSchema, type RabbitSettings } from './settings.ts';
import { rabbitServiceLink } from './service-link.ts';

const onlyLocal = (s: RabbitSettings) => `broker.nodes ${s.nodes}: only the local runtime starts a RabbitMQ cluster (an external broker is used as it is; leave nodes out)`;

const rabbitmq = brokerModule({
  name: 'rabbitmq',
  title: 'RabbitMQ',
  settingsSchema,
  settings: resolveSettings,
  requirements: [
    TOXIPROXY,
    { requirement: RABBITMQ_SERVER, purpose: 'to run RabbitMQ locally' },
  ],
  // broker.nodes > 1: a cluster of local nodes (cluster.ts).
  deploy: {
    local: (ctx, s) => (s.nodes > 1 ? deployCluster(ctx, s) : deployLocal(ctx, s)),
    containers: (ctx, s) => (s.nodes > 1 ? Promise.reject(new InputError(onlyLocal(s))) : deployContainers(ctx, s)),
    external: (ctx, s) => (s.nodes > 1 ? Promise.reject(new InputError(onlyLocal(s))) : deployExternal(ctx, s)),
  },
  externalSettings: EXTERNAL_SETTINGS,
  checkExternal,
  containerServices,
  capabilities,
  endpoint: asEndpoint,
  admin: (endpoint, settings, names) => new RabbitAdmin(endpoint, settings, names),
  service: rabbitServiceLink,
  // An unacked delivery comes back when its channel closes: at once for a clean close, after
  // about two heartbeats for a silent connection; a retry queue holds messages for its TTL.
  redeliveryHorizonMs: (s) => Math.max(2 * s.heartbeatSeconds * 1000, s.deadLetter.retryQueue?.ttlMs ?? 0),
  redeliveryHorizonSetting: (s) => ((s.deadLetter.retryQueue?.ttlMs ?? 0) > 2 * s.heartbeatSeconds * 1000 ? 'broker.deadLetter.retryQueue.ttlMs' : 'broker.heartbeatSeconds (twice it)'),
  producer: (endpoint, settings, names, options) => new RabbitProducer(endpoint, settings, names, options).connect(),
  consumer: (endpoint, settings, names, options) => new RabbitConsumer(endpoint, settings, names, options),
});

export default rabbitmq;
export { RabbitAdmin, RabbitConsumer, RabbitProducer, resolveSettings, settingsSchema };
export type { RabbitSettings };
