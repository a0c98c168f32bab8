import type { BrokerCapabilities } from '../broker/contract.ts';
import type { Scenario } from '../spec/types.ts';

/** Relay processes of an outbox run: the scenario's, else one per broker lane, else one. */
export function relayCount(s: Scenario, capabilities: BrokerCapabilities | undefined): number {
  return s.workload.gateway?.relays ?? capabilities?.lanes ?? 1;
}
