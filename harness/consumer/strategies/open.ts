import type { Scenario, StoreSetting } from '../../spec/types.ts';
import { EntityStore } from '../entity-store.ts';
import type { StrategyContext } from './contract.ts';
import { chosenStrategy } from './registry.ts';

/** The shared store (a SQLite file's path, or its setting) opened with the strategy the scenario's consumers run (`context` in a consumer). */
export async function openStrategyStore(at: string | StoreSetting, scenario: Pick<Scenario, 'consumers' | 'workload'>, context?: StrategyContext): Promise<EntityStore> {
  const { strategy, options } = await chosenStrategy(scenario.consumers.strategy);
  const setting: StoreSetting = typeof at === 'string' ? { kind: 'sqlite', file: at } : at;
  return EntityStore.at(setting, strategy, scenario.workload.entity, options, { split: scenario.workload.keys.split }, context);
}

/** Whether the scenario's consumers read the entities' owner (the run then starts one: harness/owner/). */
export async function usesOwner(scenario: Pick<Scenario, 'consumers'>): Promise<boolean> {
  return (await chosenStrategy(scenario.consumers.strategy)).strategy.usesOwner === true;
}
