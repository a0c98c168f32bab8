/**
 * Azure Service Bus for convoy: convoy's own emulator (local; see emulator/README via
 * ../README.md), Microsoft's emulator image (containers), or a real namespace (external),
 * always through the unmodified @azure/service-bus SDK.
 */
import type { ContainerService, DeployContext, Deployment, ExternalSetting } from '../../harness/broker/contract.ts';
import { brokerModule } from '../../harness/broker/module.ts';
import { TOXIPROXY } from '../../harness/net/toxiproxy.ts';
import { capabilities } from './capabilities.ts';
import { InputError } from '../../harness/errors.ts';
import { ServiceBusAdmin } from './admin.ts';
import { ServiceBusConsumer, serviceBusProducer } from './client.ts';
import { asEndpoint } from './endpoint.ts';
import { deployLocal, EMULATOR } from './local.ts';
import { resolveSettings, settingsSchema, type ServiceBusSettings } from './settings.ts';
import { serviceBusServiceLink } from './service-link.ts';

/** Microsoft's emulator and the SQL Server it needs (untested here: no container engine). */
export function containerServices(): ContainerService[] {
  return [
    {
      name: 'servicebus-sql',
      image: 'mcr.microsoft.com/mssql/server:2022-latest',
      environment: { ACCEPT_EULA: 'Y', MSSQL_SA_PASSWORD: 'Convoy_Passw0rd' },
      ports: [],
    },
    {
      name: 'servicebus-emulator',
      image: 'mcr.microsoft.com/azure-messaging/servicebus-emulator:latest',
      environment: { SQL_SERVER: 'servicebus-sql', MSSQL_SA_PASSWORD: 'Convoy_Passw0rd', ACCEPT_EULA: 'Y' },
      ports: [{ container: 5672, host: 35674 }],
      dependsOn: ['servicebus-sql'],
    },
  ];
}

/** The settings deployConnected reads; docs/external.md lists them. */
const EXTERNAL_SETTINGS: readonly ExternalSetting[] = [
  { key: 'connectionString', help: 'Endpoint=sb://...;SharedAccessKeyName=...;SharedAccessKey=...', secret: true, scenarioField: true },
];

/** Containers and external: a running emulator or namespace, named by its connection string. */
async function deployConnected(ctx: DeployContext, s: ServiceBusSettings): Promise<Deployment> {
  const connectionString = (ctx.external?.connectionString as string | undefined) ?? s.connectionString;
  if (ctx.runtime === 'containers' && !connectionString) {
    throw new InputError('servicebus on the containers runtime: start docker-compose.yml\'s servicebus-emulator, then pass --external connectionString=<its connection string>');
  }
  if (!connectionString) throw new InputError('servicebus on the external runtime needs --external connectionString=Endpoint=sb://...');
  // A managed service reports no version: the namespace's host (never the key) says what was tested.
  const host = /Endpoint=sb:\/\/([^/;]+)/i.exec(connectionString)?.[1];
  return {
    broker: 'servicebus', runtime: ctx.runtime, endpoint: { connectionString }, versions: { servicebus: 'external' },
    ...(host ? { cluster: { endpoint: host } } : {}),
    emulator: ctx.runtime === 'containers' ? { name: 'Microsoft Service Bus emulator', version: 'latest' } : undefined,
    links: [], nodes: [], logFiles: [], stop: async () => {},
  };
}

const servicebus = brokerModule({
  name: 'servicebus',
  title: 'Service Bus',
  settingsSchema,
  settings: resolveSettings,
  requirements: [TOXIPROXY],
  deploy: { local: (ctx) => deployLocal(ctx), containers: deployConnected, external: deployConnected },
  externalSettings: EXTERNAL_SETTINGS,
  containerServices: () => containerServices(),
  capabilities,
  endpoint: asEndpoint,
  admin: (endpoint, settings, names) => new ServiceBusAdmin(endpoint, settings, names),
  // A locked message (or session) comes back when its lock ends.
  redeliveryHorizonMs: (s) => s.lockDurationMs,
  redeliveryHorizonSetting: () => 'broker.lockDurationMs',
  producer: serviceBusProducer,
  consumer: (endpoint, settings, names, options) => new ServiceBusConsumer(endpoint, settings, names, options),
  service: serviceBusServiceLink,
});

export default servicebus;
export { EMULATOR };
