/**
 * Azure Service Bus for convoy: convoy's own emulator (local; see emulator/README via
 * ../README.md), Microsoft's emulator image (containers), or a real namespace (external),
 * always through the unmodified @azure/service-bus SDK.
 */
import type { BrokerModule, BrokerSettings, ContainerService } from '../../harness/broker/contract.ts';
import { InputError } from '../../harness/errors.ts';
import { ServiceBusAdmin } from './admin.ts';
import { ServiceBusConsumer, serviceBusProducer } from './client.ts';
import { asEndpoint } from './endpoint.ts';
import { deployLocal, EMULATOR } from './local.ts';
import { resolveSettings, settingsSchema } from './settings.ts';

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

const servicebus: BrokerModule = {
  name: 'servicebus',
  settingsSchema,
  resolveSettings,
  async deploy(ctx, raw: BrokerSettings) {
    const s = resolveSettings(raw);
    if (ctx.runtime === 'local') return deployLocal(ctx);
    const connectionString = (ctx.external?.connectionString as string | undefined) ?? s.connectionString;
    if (ctx.runtime === 'containers' && !connectionString) {
      throw new InputError('servicebus on the containers runtime: start docker-compose.yml\'s servicebus-emulator, then pass --external connectionString=<its connection string>');
    }
    if (!connectionString) throw new InputError('servicebus on the external runtime needs --external connectionString=Endpoint=sb://...');
    return {
      broker: 'servicebus', runtime: ctx.runtime, endpoint: { connectionString }, versions: { servicebus: 'external' },
      emulator: ctx.runtime === 'containers' ? { name: 'Microsoft Service Bus emulator', version: 'latest' } : undefined,
      links: [], nodes: [], logFiles: [], stop: async () => {},
    };
  },
  containerServices: () => containerServices(),
  async admin(endpoint, settings, names) {
    return new ServiceBusAdmin(asEndpoint(endpoint), resolveSettings(settings), names);
  },
  async producer(endpoint, settings, names, options) {
    return serviceBusProducer(asEndpoint(endpoint), resolveSettings(settings), names, options);
  },
  async consumer(endpoint, settings, names, options) {
    return new ServiceBusConsumer(asEndpoint(endpoint), resolveSettings(settings), names, options);
  },
};

export default servicebus;
export { EMULATOR };
