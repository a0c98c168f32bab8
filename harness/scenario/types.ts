/**
 * A scenario, as the runner sees it after validation and defaults (harness/scenario/load.ts).
 * The YAML under workloads/ has the same shape; the published JSON Schema is
 * harness/scenario/scenario.schema.json. Durations are milliseconds unless named otherwise;
 * YAML may also write them as strings like "30s", "250ms", "2m".
 */
import type { BrokerSettings } from '../broker/contract.ts';
import type { EntitySpec } from '../workload/changes.ts';
import type { StrategyOptions } from '../consumer/strategies/contract.ts';

export type Distribution =
  | { kind: 'uniform' }
  | { kind: 'zipf'; s: number }
  | { kind: 'hotspot'; hotKeys: number; share: number }
  | { kind: 'single' };

export type RateSpec =
  | { kind: 'fixed'; perSecond: number }
  | { kind: 'steps'; steps: { perSecond: number; forMs: number }[] }
  | { kind: 'unlimited' };

export type SizeSpec =
  | { kind: 'fixed'; bytes: number }
  | { kind: 'uniform'; min: number; max: number }
  | { kind: 'choice'; bytes: number[]; weights?: number[] };

export type TimeDistribution =
  | { kind: 'constant'; ms: number }
  | { kind: 'uniform'; minMs: number; maxMs: number }
  | { kind: 'exponential'; meanMs: number };

export interface WorkloadSpec {
  keys: { count: number; distribution: Distribution; prefix: string };
  /** Entity lifecycle the messages walk through; the last state repeats past its end. */
  entity: EntitySpec;
  rate: RateSpec;
  size: SizeSpec;
  /** Stop after this long, or after this many messages, whichever comes first. */
  durationMs?: number;
  messages?: number;
  /** Messages sent before measuring starts; their events are excluded from latency figures. */
  warmupMs: number;
  /** Sends a producer process may have awaiting their ack (the client's buffer): past it the
   * schedule waits, and a stalled broker shows up as publish delay. */
  maxInFlight: number;
  /** Producer processes. Each logical producer numbers its own keys' messages. */
  producers: ProducerSpec[];
}

export interface ProducerSpec {
  /** The logical writer (history `producer`), e.g. "orders". */
  name: string;
  /** How many OS processes send for this logical writer. Keys are sharded over them unless
   * `sharedKeys` is set (then every process may send any key, seq still from one counter). */
  processes: number;
  sharedKeys: boolean;
  /** Broker settings overriding the scenario's for this producer (e.g. another partitioner). */
  broker?: Record<string, unknown>;
  /** Per process (index 0 = the first): broker settings overriding the producer's, e.g. two
   * processes of one writer with different partitioners. */
  processBroker?: Record<string, unknown>[];
}

export interface PoisonSpec {
  /** Share of messages (0..1) chosen by seed, or explicit keys, that fail every time. */
  share?: number;
  keys?: string[];
  policy: 'retry' | 'dead-letter' | 'park-key';
  /** For `retry`: attempts before giving up, and the backoff between them. */
  maxAttempts: number;
  backoffMs: number;
}

export interface ConsumerSpec {
  /** Consumer processes in the group: c1..cN. */
  processes: number;
  handler: TimeDistribution;
  /** A mode of harness/consumer/concurrency/modes/ (partition, key, unordered, ...), by name. */
  concurrency: { mode: string; workers: number; [field: string]: unknown };
  /** A strategy's name (harness/consumer/strategies/), or { kind: <name>, ...its options }. */
  strategy: string | StrategyOptions;
  poison?: PoisonSpec;
  /** Per-consumer overrides, by consumer name, e.g. { c1: { handler: {...} } }. */
  overrides?: Record<string, { handler?: TimeDistribution }>;
}

export interface FaultSpec {
  name: string;
  kind: string;
  /** Offset from the start of the measured phase. */
  atMs: number;
  durationMs: number;
  /** Kind-specific settings (target consumer, link, toxic attributes...). */
  [field: string]: unknown;
}

/** `lost: 0`, `reorder: ">0"`, or `{ expect: ">0", during: "stall-c1" }`. */
export type ExpectationSpec =
  | '0'
  | '>0'
  | 'any'
  | 0
  | { expect: '0' | '>0' | 'any' | 0; during?: string; before?: string; after?: string; outside?: string; strategy?: string };

export interface Scenario {
  name: string;
  description: string;
  seed: number;
  broker: BrokerSettings;
  workload: WorkloadSpec;
  consumers: ConsumerSpec;
  faults: FaultSpec[];
  /** Per anomaly type: one expectation, or several (e.g. 0 before a fault and >0 during it).
   * `wrong-state` is the count of keys whose final state is wrong under the consumers' strategy,
   * or under the one it names (`{ expect: 0, strategy: state-machine }`). */
  expect: Record<string, ExpectationSpec | ExpectationSpec[]>;
  run: {
    /** Caps the drain (default: the broker's redelivery horizon plus a margin; harness/runner/drain.ts). */
    drainTimeoutMs?: number;
    /** Give up early when the publish delay stays above this (harness/runner/give-up.ts). */
    giveUpDelayMs: number;
    /** Hard bound on the whole run, set-up to teardown. */
    maxDurationMs: number;
    /** Anomalies within this long after a fault's end still count as "during" it. */
    settleMs: number;
  };
}
