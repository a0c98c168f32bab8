/**
 * What `convoy validate` refuses in `workload.gateway` beyond its schema: it replaces the
 * producers, autocannon holds one fixed rate, its connections cannot outnumber the requests
 * per second, and the mode must be one the broker can serve. The modes come in the loader's
 * catalogue (catalogue.ts). Each problem is a `<path>: ...` line.
 */
import type { BrokerCapabilities } from '../broker/contract.ts';
import type { Scenario } from '../spec/types.ts';
import type { CatalogueGatewayMode } from './catalogue.ts';

type Modes = ReadonlyMap<string, CatalogueGatewayMode>;

export function gatewayProblems(s: Scenario, raw: Record<string, any>, modes: Modes): string[] {
  const g = s.workload.gateway;
  if (!g) return [];
  const errors: string[] = [];
  if (raw.workload?.producers !== undefined) errors.push('workload.gateway: expected either gateway or producers, got both (the order service is the producer)');
  const rate = s.workload.rate;
  if (rate.kind !== 'fixed') errors.push(`workload.rate.kind: expected fixed with workload.gateway (autocannon holds one overall rate), got ${rate.kind}`);
  else {
    // autocannon's overallRate is split over the connections in whole requests per second:
    // fewer requests than connections silently drops connections.
    if (g.connections > rate.perSecond) errors.push(`workload.gateway.connections: expected at most workload.rate.perSecond (${rate.perSecond}), got ${g.connections}`);
    if (!Number.isInteger(rate.perSecond)) errors.push(`workload.rate.perSecond: expected a whole number of requests per second with workload.gateway, got ${rate.perSecond}`);
  }
  if (s.workload.keys.split !== undefined) errors.push('workload.keys.split: not with workload.gateway (the service numbers whole orders)');
  if (s.consumers.poison) errors.push('consumers.poison: not with workload.gateway (the service writes no poison)');
  if (g.relays !== undefined && !modes.get(g.mode)?.relay) errors.push(`workload.gateway.relays: only the outbox mode has relays, got mode ${g.mode}`);
  return errors;
}

/** The mode against what the broker can do with these settings (needs its capabilities). */
export function gatewayBrokerProblems(s: Scenario, capabilities: BrokerCapabilities | undefined, modes: Modes): string[] {
  const g = s.workload.gateway;
  if (!g) return [];
  const why = modes.get(g.mode)?.unservable?.(capabilities, s.broker.kind, g.relays);
  return why ? [`workload.gateway.mode: ${why}`] : [];
}
