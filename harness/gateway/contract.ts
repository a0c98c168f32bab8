/**
 * The order service under test: N instances of a small HTTP service
 * (`POST /orders/{id}/events`), one SQLite store (WAL) shared by them as a service's database,
 * publishing through convoy's broker adapters, driven by autocannon. A mode is one file in
 * ./modes/ default-exporting a GatewayMode: how an instance numbers an event and who publishes
 * it. It is found there (registry.ts) and named by `workload.gateway.mode`.
 */
import type { BrokerCapabilities } from '../broker/contract.ts';
import type { OrderStore, StoredEvent } from './order-store.ts';

export type { GatewaySpec } from '../spec/plugin-parts.ts';

/** One request's change as the instance received it. */
export interface OrderChange {
  key: string;
  /** The event's name (the entity lifecycle's, at the client's own count for the order). */
  event: string;
}

export interface GatewayMode {
  name: string;
  description: string;
  /** A router in front sends each order id to one instance (harness/gateway/router.ts). */
  router?: boolean;
  /** The instances only write the outbox; one relay process per lane publishes it (relay.ts). */
  relay?: boolean;
  /**
   * Why the broker cannot serve this mode with these settings and the scenario's
   * `workload.gateway.relays`; undefined when it can.
   */
  unservable?(capabilities: BrokerCapabilities | undefined, broker: string, relays: number | undefined): string | undefined;
  /**
   * Writes one change into the store and returns the event to publish after it, or null when
   * a relay publishes it. May await (a database round trip): other requests run meanwhile.
   */
  write(store: OrderStore, change: OrderChange, lane: number): Promise<StoredEvent | null>;
}

/** History marks the service's processes write when they stop (figures.ts reads them). */
export const HTTP_MARK = 'gateway-http';
export const AUTOCANNON_MARK = 'gateway-autocannon';
