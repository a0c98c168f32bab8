/**
 * The catalogue the CLI hands to the scenario loader: every broker under brokers/, every fault
 * kind in harness/faults/, the consumer strategies and concurrency modes, the order service's modes. Built once per process.
 * The loader has no registry of its own; this is where the plug-ins are found.
 */
import { brokerNames, loadBroker } from '../broker/registry.ts';
import { faultKinds } from '../faults/registry.ts';
import { GATEWAY_MODES } from '../gateway/registry.ts';
import { STRATEGIES } from '../consumer/strategies/schema.ts';
import { CONCURRENCY_MODES } from '../consumer/concurrency/registry.ts';
import type { ScenarioCatalogue } from '../scenario/catalogue.ts';

let built: Promise<ScenarioCatalogue> | undefined;

export function scenarioCatalogue(): Promise<ScenarioCatalogue> {
  built ??= buildCatalogue();
  return built;
}

async function buildCatalogue(): Promise<ScenarioCatalogue> {
  return {
    brokers: {
      names: () => {
        try {
          return brokerNames();
        } catch {
          return [];
        }
      },
      load: (kind) => loadBroker(kind),
    },
    faults: await faultKinds(),
    strategies: new Map([...STRATEGIES].map(([name, s]) => [name, { description: s.description, unfit: s.unfit?.bind(s) }])),
    modes: new Map(CONCURRENCY_MODES.map((m) => [m.name, { description: m.description }])),
    gatewayModes: new Map(GATEWAY_MODES.map((m) => [m.name, m])),
  };
}
