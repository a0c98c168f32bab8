/**
 * Shapes of what the ordering checker reports. The anomaly types themselves are defined once,
 * in anomaly-types.ts.
 */

export { ANOMALY_TYPES, isAnomalyType, type AnomalyType } from './anomaly-types.ts';
import type { AnomalyType } from './anomaly-types.ts';

/** One handling attempt as examples show it. Missing optional fields are null. */
export interface EventRef {
  consumer: string | null;
  lane: string | null;
  offset: number | null;
  start: number;
  end: number | null;
  outcome: 'ok' | 'error' | null;
}

/** What the sender knows about a message: any ack true, all acks false, or unknown. */
export type AckStatus = 'ok' | 'failed' | 'unknown';

/**
 * One example of an anomaly. Always has the type-specific identity (key, producer, seq where
 * they apply), `at` (the time the anomaly is attributed to) and a one-line `note`; the other
 * fields depend on the type (see examples.ts).
 */
export interface Example {
  key: string | null;
  producer?: string | null;
  seq?: number | null;
  at: number;
  note: string;
  [field: string]: unknown;
}

export interface AnomalyEntry {
  count: number;
  /** Distinct keys involved (a null key is not counted). */
  keys: number;
  examples: Example[];
  /**
   * Those of the type that hang on two times stamped on different hosts closer together than
   * their clocks are known: not in `count`. Present only when there are any (reorder,
   * regression, overlap). Each example has `margin` and `uncertainty` (µs).
   */
  uncertain?: UncertainEntry;
}

export interface UncertainEntry {
  count: number;
  keys: number;
  examples: Example[];
}

export type Anomalies = Record<AnomalyType, AnomalyEntry>;

/** A fault instance, from its start to its end; the window it owns runs until `until`. */
export interface FaultWindow {
  name: string;
  kind: string | null;
  /** null: the history has an end without a start (the window runs from the beginning). */
  start: number | null;
  /** null: the fault never ended (the window runs to the end of the history). */
  end: number | null;
  /** end + settle time; null when end is null. */
  until: number | null;
}

/** A window supplied by the caller instead of, or on top of, the history's fault events. */
export interface WindowInput {
  name: string;
  start: number;
  end: number;
  kind?: string;
}

/**
 * The history's `remaining` event (the latest by `at`, if several; at one instant the one
 * holding most, and a full tie keeps the lanes all report with the largest count): what the
 * broker still held when the run ended. null in the outcome when the history has none (old
 * histories): an undelivered acked message is then `lost` as before. Otherwise the lane its
 * acks name decides where `lanes` reports it, else `total` (see analysis.ts).
 */
export interface BrokerRemaining {
  at: number;
  known: boolean;
  total: number | null;
  lanes: Record<string, number> | null;
}

export interface BadLine {
  line: number;
  reason: string;
}

export interface InputStats {
  lines: number;
  /** Events of the types the checker reads (send, ack, process, fault). */
  events: number;
  /** Events of other types (rebalance, commit, mark, ...), accepted and ignored. */
  ignored: number;
  badLines: number;
  /** The first bad lines (at most 100), in input order. */
  badLineSamples: BadLine[];
  messages: number;
  keys: number;
  producers: number;
  processEvents: number;
}
