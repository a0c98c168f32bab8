import type { Scenario } from '../../scenario/types.ts';
import { openStore, type EntityStore } from '../store.ts';
import { chosenStrategy } from './registry.ts';

/** The shared store file opened with the strategy the scenario's consumers run. */
export async function openStrategyStore(file: string, scenario: Pick<Scenario, 'consumers' | 'workload'>): Promise<EntityStore> {
  const { strategy, options } = await chosenStrategy(scenario.consumers.strategy);
  return openStore(file, strategy, scenario.workload.entity, options, { split: scenario.workload.keys.split });
}
