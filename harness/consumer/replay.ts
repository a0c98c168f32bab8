/**
 * Scores every strategy on one run. The consumers' own strategy ran live, with the real races
 * of several processes on one store file: its final state is read from that file. Every other
 * strategy that is a pure function of what was delivered is replayed after the run: the run's
 * applies (successful handling attempts from the history) in commit order (`end`), into a fresh
 * in-memory store per strategy. The measured run pays nothing for them.
 */
import { existsSync } from 'node:fs';
import type { EntitySpec } from '../workload/changes.ts';
import type { VersionedState } from '../workload/entity.ts';
import { compareWithTruth, openStore, type Comparison } from './entity-store.ts';
import { EFFECTS, type ConsumerStrategy, type Delivered, type Effect, type StrategyOptions } from './strategies/contract.ts';
import { loadStrategies, strategyOptions } from './strategies/registry.ts';
import type { MergedCosts } from './strategies/costs.ts';

/** A successful apply as the history has it: what was applied, and when it committed. */
export interface Apply extends Delivered {
  end: number;
}

export type EffectCounts = Record<Effect, number>;

export function emptyCounts(): EffectCounts {
  return Object.fromEntries(EFFECTS.map((e) => [e, 0])) as EffectCounts;
}

export interface StrategyScore extends Comparison {
  strategy: string;
  /** The consumers' strategy (the one `wrong-state` judges unless it names another). */
  primary: boolean;
  mode: 'live' | 'replay';
  /** What the strategy made of the applies: applied, skipped (stale, duplicate), rejected (gap). */
  effects: EffectCounts;
  /** The strategy's own counts (ConsumerStrategy.figures), when it keeps any. */
  figures?: Record<string, number>;
  /** The live strategy's costs as its consumers reported them (costs.ts). */
  costs?: MergedCosts;
}

/** Applies in commit order into a fresh in-memory store: the final states and the effect counts. */
export function replay(
  strategy: ConsumerStrategy,
  entity: EntitySpec,
  options: StrategyOptions,
  applies: Apply[],
): { final: Map<string, VersionedState>; effects: EffectCounts; figures: Record<string, number> } {
  const sorted = [...applies].sort((a, b) => a.end - b.end);
  const store = openStore(':memory:', strategy, entity, options);
  try {
    const effects = emptyCounts();
    store.batch(() => {
      for (const a of sorted) effects[store.applyNow(a)]++;
    });
    return { final: store.finalStates(), effects, figures: store.figures() };
  } finally {
    store.close();
  }
}

export interface ScoreInput {
  entity: EntitySpec;
  /** consumers.strategy as the scenario gives it. */
  live: string | StrategyOptions;
  /** The shared store file the consumers wrote; absent when no consumer ran. */
  storeFile: string;
  truth: Map<string, VersionedState>;
  unreachable: Set<string>;
  applies: Apply[];
  /** The live strategy's effects, counted from the history. */
  liveEffects: EffectCounts;
  /** The live strategy's costs, merged from its consumers' marks; absent when none reported. */
  liveCosts?: MergedCosts | null;
}

/** Every strategy that can run on this entity: the live one from its file, the pure others by replay. */
export async function scoreStrategies(input: ScoreInput): Promise<Record<string, StrategyScore> | null> {
  if (!existsSync(input.storeFile)) return null;
  const live = strategyOptions(input.live);
  const out: Record<string, StrategyScore> = {};
  for (const [name, strategy] of await loadStrategies()) {
    if (strategy.unfit?.(input.entity)) continue;
    let final: Map<string, VersionedState>;
    let effects: EffectCounts;
    let figures: Record<string, number>;
    if (name === live.kind) {
      const store = openStore(input.storeFile, strategy, input.entity, live);
      try {
        final = store.finalStates();
        figures = store.figures();
      } finally {
        store.close();
      }
      effects = input.liveEffects;
    } else if (strategy.pure) {
      ({ final, effects, figures } = replay(strategy, input.entity, { kind: name }, input.applies));
    } else continue;
    const comparison = compareWithTruth(final, input.truth, input.unreachable, 10, strategy.scoresVersion);
    out[name] = { strategy: name, primary: name === live.kind, mode: name === live.kind ? 'live' : 'replay', effects, ...(Object.keys(figures).length ? { figures } : {}), ...comparison };
    if (name === live.kind && input.liveCosts) out[name].costs = input.liveCosts;
  }
  return out;
}
