/**
 * A consumer under test on Service Bus (docs/consumer-under-test.md): the connection string
 * (convoy's emulator through the Toxiproxy clients link, so network faults reach the service; a
 * namespace's own on the external runtime) and the run's queue. convoy's fields travel as
 * application properties. A lane is the session (sessions on: the key) or the queue, as acks
 * name them.
 */
import type { BrokerSettings, Endpoint, RunNames, ServiceLink } from '../../harness/broker/contract.ts';
import { asEndpoint, queueName } from './endpoint.ts';
import { resolveSettings } from './settings.ts';

export const serviceBusServiceLink: ServiceLink = {
  variables: {
    SERVICEBUS_CONNECTION_STRING: "the namespace's connection string (convoy's emulator: `UseDevelopmentEmulator=true`, a key it accepts)",
    SERVICEBUS_QUEUE: "the run's queue",
    SERVICEBUS_SESSIONS: '`true` when the queue requires sessions (the session id is the key, and the lane), else `false` (the lane is the queue)',
  },
  env(endpoint: Endpoint, settings: BrokerSettings, names: RunNames): Record<string, string> {
    return {
      SERVICEBUS_CONNECTION_STRING: asEndpoint(endpoint).connectionString,
      SERVICEBUS_QUEUE: queueName(names.prefix),
      SERVICEBUS_SESSIONS: String(resolveSettings(settings).sessions),
    };
  },
  lane: (reported: string) => reported,
};
