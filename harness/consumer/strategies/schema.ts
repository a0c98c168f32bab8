/**
 * The strategies' part of the scenario schema (harness/scenario/schema.ts embeds it):
 * `consumers.strategy` is a strategy's name or { kind: <name>, ...its options }, each
 * strategy contributing its options; `expect.wrong-state` may name the strategy it judges.
 */
import type { ConsumerStrategy } from './contract.ts';
import { loadStrategies } from './registry.ts';

/** What the schema needs of a strategy: its name, description and options. */
export type StrategySchemaPart = Pick<ConsumerStrategy, 'name' | 'description' | 'options'>;

/** Marks the name-or-object field, so that the loader reports one branch's errors only. */
export const STRATEGY_COMMENT = 'convoy:strategy';

/** The strategies found when the scenario schema was built (this process's). */
export const STRATEGIES: ReadonlyMap<string, ConsumerStrategy> = await loadStrategies();

export function strategyFieldSchema(strategies: ReadonlyMap<string, StrategySchemaPart> = STRATEGIES) {
  const names = [...strategies.keys()];
  return {
    $comment: STRATEGY_COMMENT,
    default: 'versioned',
    description: `The consumers' strategy, run live: a name, or { kind: <name>, ...options }. Every other strategy that fits the entity is scored by replaying the run. ${[...strategies.values()].map((s) => `${s.name}: ${s.description}.`).join(' ')} Default versioned.`,
    anyOf: [
      { enum: names, description: 'A strategy by name, with its default options.' },
      {
        type: 'object',
        description: 'A strategy and its options.',
        discriminator: { propertyName: 'kind' },
        oneOf: [...strategies.values()].map((s) => ({
          type: 'object',
          description: s.description,
          additionalProperties: false,
          required: ['kind'],
          properties: { kind: { const: s.name }, ...(s.options ?? {}) },
        })),
      },
    ],
  };
}

/** The names a `wrong-state` expectation may give. */
export function strategyNameSchema(strategies: ReadonlyMap<string, StrategySchemaPart> = STRATEGIES) {
  return { enum: [...strategies.keys()], description: "The strategy whose final state is judged. Default: the consumers' strategy." };
}
