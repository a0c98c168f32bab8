import type { Endpoint } from '../../harness/broker/contract.ts';

/** What clients need: the connection string (through Toxiproxy), and how to create queues. */
export interface ServiceBusEndpoint {
  connectionString: string;
  /** The emulator's HTTP queue API; absent for a real namespace (the SDK's admin client then). */
  adminUrl?: string;
}

export function asEndpoint(e: Endpoint): ServiceBusEndpoint {
  if (typeof e.connectionString !== 'string') throw new Error('servicebus endpoint without a connection string');
  return e as unknown as ServiceBusEndpoint;
}

/** The run's queue. */
export function queueName(prefix: string): string {
  return prefix.slice(0, 250);
}
