/**
 * A concurrency mode: how one consumer process runs the deliveries its broker client hands it
 * (after Confluent's Parallel Consumer). Each mode is one file in ./modes/ default-exporting a
 * ConcurrencyMode; it is found there (registry.ts), named by the scenario's
 * `consumers.concurrency.mode`, and adds its description (and any fields of its own) to the
 * scenario schema.
 */

/** Runs a consumer process's handling tasks. */
export interface Scheduler {
  /** Tasks accepted and not finished. */
  readonly inFlight: number;
  /**
   * Resolves when the client may hand out more work (the delivery gate then hands out the
   * lane's next delivery); the task itself runs when its turn comes. Settlement is the task's
   * business. `key` is null for a message that could not be decoded.
   */
  accept(key: string | null, task: () => Promise<void>): Promise<void>;
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
  maxInFlight(workers: number): number;
  /** A scheduler for one consumer process with `workers` handlers. */
  scheduler(workers: number): Scheduler;
  /** JSON Schema properties this mode adds to `consumers.concurrency` (its own fields). */
  schema?: Record<string, unknown>;
}
