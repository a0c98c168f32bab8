/**
 * A consumer strategy: how a consumer turns a delivered message into a change of its entity
 * store, and how that store's final state is read and compared with the truth. One file per
 * strategy in this folder (or a folder named in CONVOY_STRATEGY_DIRS), default-exporting a
 * ConsumerStrategy; registry.ts finds them, the scenario schema publishes their options, the
 * consumers run the scenario's one live, and the analysis replays the others (replay.ts).
 */
import type Database from 'better-sqlite3';
import type { EntitySpec } from '../../workload/changes.ts';
import type { VersionedState } from '../../workload/entity.ts';

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

/** `consumers.strategy` resolved to an object: the kind and its options. */
export interface StrategyOptions {
  kind: string;
  [option: string]: unknown;
}

/** A strategy's tables in one SQLite database, opened for applying and reading. */
export interface StrategyStore {
  /** Applies one delivery; safe against other processes on the same file (one transaction). */
  apply(m: Delivered): Effect;
  /** The final state per key, sorted by key. */
  finalStates(): Map<string, VersionedState>;
  /** The strategy's own counts, as named in its `figures` (kept in the store, so every process's add up). */
  figures?(): Record<string, number>;
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
  /** Creates its tables if absent and returns its store. */
  open(db: Database.Database, entity: EntitySpec, options: StrategyOptions): StrategyStore;
}
