/**
 * A consumer strategy: how a consumer turns a delivered message into a change of its entity
 * store, and how that store's final state is read and compared with the truth. One file per
 * strategy in this folder (or a folder named in CONVOY_STRATEGY_DIRS), default-exporting a
 * ConsumerStrategy; registry.ts finds them, the scenario schema publishes their options, the
 * consumers run the scenario's one live, and the analysis replays the others (replay.ts).
 */
import type { Program, Steps, StoreDb } from '../store/program.ts';
import type { EntitySpec } from '../../workload/changes.ts';
import type { VersionedState } from '../../workload/entity.ts';
import type { StrategyCosts } from './costs.ts';

/** applied; skipped (stale or a duplicate: nothing to do); rejected (cannot be applied yet: a gap). */
export type Effect = 'applied' | 'skipped' | 'rejected';
export const EFFECTS: readonly Effect[] = ['applied', 'skipped', 'rejected'];

/** One delivered message, as the consumer decoded it. Its change is a function of these. */
export interface Delivered {
  key: string;
  producer: string | null;
  seq: number;
  /** The producing service's wall-clock stamp from the payload (ms); absent when it carried none. */
  stampMs?: number;
}

export type { StrategyOptions } from '../../spec/plugin-parts.ts';
import type { StrategyOptions } from '../../spec/plugin-parts.ts';

/**
 * What a strategy that holds messages back (the resequencer) returns instead of an effect: the
 * consumer keeps the delivery unsettled (it still counts toward the in-flight cap) until the
 * strategy lets it go through `release`.
 */
export type Held = 'held';

/** A held message the strategy has now applied (or skipped), at `at` (µs, run clock). */
export interface Released extends Delivered {
  effect: Effect;
  /** When the release's apply started and ended. */
  start: number;
  at: number;
}

/**
 * What a strategy may use while it runs in a consumer process (never in a replay): the clock,
 * the history's markers, and the entity's owner service when the run started one.
 */
export interface StrategyContext {
  /** The run clock, µs. */
  now(): number;
  /** Writes a `mark` event into the consumer's history (an alert, a fetch). */
  mark(name: string, detail: Record<string, unknown>): void;
  /** The owner's current state of `key`; null when the owner has none yet. Throws when it cannot answer. */
  fetchOwner?(key: string): Promise<VersionedState | null>;
  /**
   * How many deliveries this consumer can hold unsettled at once (its in-flight cap). A held
   * message counts toward it: once held messages fill it, no delivery arrives that could fill a
   * gap.
   */
  inFlightCap?: number;
}

/**
 * A strategy's tables in the entity store, opened for applying and reading. Each method returns
 * a program (store/program.ts) that the store's backend runs: at once on SQLite, with awaits on
 * PostgreSQL.
 */
export interface StrategyStore {
  /**
   * Applies one delivery; safe against other processes on the same store (one transaction).
   * A strategy that reads another service (`usesOwner`) waits for it in the program; one that
   * holds messages may answer `held`. Pure strategies never wait.
   */
  apply(m: Delivered): Steps<Effect | Held>;
  /**
   * When the last apply of `key` took effect (run clock, µs), read inside its transaction. The
   * consumer records it as the apply's end, so the history's order of ends is the store's commit
   * order even when the process is descheduled between the commit and a timestamp taken after it
   * (another consumer can apply the next version in between). Per key, not one "last": handlings
   * of other keys in the same process can apply between this apply and the consumer reading it
   * (several handlings that resume together after a stall, an owner read that answers later), and
   * one stamp for all of them made their ends equal and later than their commits. Absent: the
   * consumer's clock right after a synchronous apply.
   */
  appliedAt?(key: string): number | undefined;
  /** Holding strategies: the held messages that may leave now, already applied, in order. */
  release?(): Program<Released[]>;
  /** Cost figures so far (see costs.ts): held messages, peaks, reads, latencies. */
  costs?(): StrategyCosts;
  /** The final state per key, sorted by key. */
  finalStates(): Steps<Map<string, VersionedState>>;
  /** The strategy's own counts, as named in its `figures` (kept in the store, so every process's add up). */
  figures?(): Program<Record<string, number>>;
}

export interface ConsumerStrategy {
  /** The name scenarios use: the file's name. */
  name: string;
  /** One line for the schema and the docs. */
  description: string;
  /** JSON Schema properties of its options (besides `kind`); none when absent. */
  options?: Record<string, Record<string, unknown>>;
  /**
   * Counts of its own beyond applied/skipped/rejected (name -> one line saying what it counts),
   * shown in the result, the report and as extra columns of the defences table.
   */
  figures?: Record<string, string>;
  /** A pure function of what was delivered, in the order it was applied: replayable after the run. */
  pure: boolean;
  /** Whether the version is part of the state it is scored on (else the state's fields only). */
  scoresVersion: boolean;
  /** Why it cannot run on this entity's events (one phrase), or undefined when it can. */
  unfit?(entity: EntitySpec): string | undefined;
  /** Reads the entity's owner service: the run starts one (harness/owner/) for its consumers. */
  usesOwner?: boolean;
  /** Declares its tables (created if absent) and returns its store; `context` only in a consumer process. */
  open(db: StoreDb, entity: EntitySpec, options: StrategyOptions, context?: StrategyContext): StrategyStore;
}
