/**
 * A concurrency mode: how one consumer process runs the deliveries its broker client hands it
 * (after Confluent's Parallel Consumer). Each mode is one file in ./modes/ default-exporting a
 * ConcurrencyMode; it is found there (registry.ts), named by the scenario's
 * `consumers.concurrency.mode`, and adds its description (and any fields of its own) to the
 * scenario schema.
 */

/** One delivery's handling as the consumer hands it to its mode: runs it alone (handler time,
 * poison policy, the store, the settlement). Modes see it as opaque. It returns nothing (no
 * promise) when the handling finished before it returned. */
export type Task = () => Promise<void> | void;

/**
 * What the consumer can do with its tasks besides running them one by one: modes that do more
 * than schedule (conflate, batch) use it; the others ignore it.
 */
export interface Handling {
  /** Settles tasks unhandled because `newer`, a later message of their key, supersedes them: recorded (effect `conflated`) and counted. */
  drop(tasks: Task[], newer: Task): Promise<void>;
  /** Handles tasks of one key as one: one handler time, their applies in one store transaction (in the given order), then each settled. */
  together(tasks: Task[]): Promise<void>;
}

/** `consumers.concurrency` as the scenario resolves it: mode, workers and the modes' own fields. */
export interface ConcurrencySettings {
  mode: string;
  workers: number;
  [field: string]: unknown;
}

/** What a mode's scheduler is given besides the worker count. */
export interface ModeContext {
  settings: ConcurrencySettings;
  handling: Handling;
}

/** Runs a consumer process's handling tasks. */
export interface Scheduler {
  /** Tasks accepted and not finished. */
  readonly inFlight: number;
  /**
   * Resolves when the client may hand out more work (the delivery gate then hands out the
   * lane's next delivery); the task itself runs when its turn comes. Settlement is the task's
   * business. `key` is null for a message that could not be decoded. Nothing (no promise) when
   * the client may go on at once (a task run inline that finished before it returned).
   */
  accept(key: string | null, task: Task): Promise<void> | void;
  /** Resolves when no accepted task is left. */
  idle(): Promise<void>;
}

export interface ConcurrencyMode {
  /** The scenario's name for it. */
  name: string;
  /** A few words for the schema: "one at a time per lane". */
  description: string;
  /** The mode a scenario gets when it names none (exactly one mode says so). */
  default?: boolean;
  /** Deliveries the broker client may hand out before earlier ones are settled. */
  maxInFlight(workers: number, settings?: ConcurrencySettings): number;
  /** A scheduler for one consumer process with `workers` handlers (`context`: its settings and the consumer's handling; modes that need it say so). */
  scheduler(workers: number, context?: ModeContext): Scheduler;
  /**
   * Set by a mode that is a hot-key defence (conflate, batch): one line on what it buys and
   * what it costs, for the defences table. Its run's measured costs are the result's
   * `consumers.costs`.
   */
  defence?: string;
  /** JSON Schema properties this mode adds to `consumers.concurrency` (its own fields). */
  schema?: Record<string, unknown>;
  /**
   * Set by a mode whose scheduler drops or groups tasks through `ModeContext.handling`
   * (conflate, batch): its tasks carry their deliveries for it. Other modes' tasks go without
   * (one object fewer per message).
   */
  groups?: boolean;
}
