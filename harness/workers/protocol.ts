/**
 * Messages between the runner and its worker processes (child_process.fork IPC).
 * Workers never share memory with the runner: they get plain JSON and write their own
 * history file, which the runner merges at the end.
 */
import type { BrokerSettings, Endpoint, RunNames } from '../broker/contract.ts';
import type { Scenario, StoreSetting } from '../spec/types.ts';
import type { ConsumerPhases } from './phases.ts';

/** The order service's processes (harness/gateway/): instances, the key-affine router, outbox relays, the load driver. */
export type GatewayRole = 'instance' | 'router' | 'relay' | 'load';

export interface WorkerInit {
  role: 'producer' | 'consumer' | GatewayRole;
  /** Process name: p-orders-1, c1, ... */
  id: string;
  brokerKind: string;
  endpoint: Endpoint;
  /** Broker settings with this worker's overrides merged in. */
  settings: BrokerSettings;
  names: RunNames;
  scenario: Scenario;
  historyFile: string;
  /** SQLite file holding entity state shared by the consumers. */
  storeFile: string;
  /** Consumers: the entity store when it is not the SQLite file `storeFile` (a PostgreSQL database the run started). */
  store?: StoreSetting;
  /** Consumers: the entities' owner service, when the run started one (harness/owner/). */
  ownerUrl?: string;
  /** Producer only: which logical producer and which of its processes this is. */
  producer?: { name: string; index: number; of: number };
  /** The order service's processes (workload.gateway). */
  gateway?: GatewayInit;
}

export interface GatewayInit {
  /** The service's SQLite store, shared by its instances and relays. */
  storeFile: string;
  /** Outbox lanes (relays); an instance writes each order to laneOf(key, lanes). */
  lanes: number;
  /** A relay: its lane. */
  lane?: number;
  /** The router: the instances' base URLs, in order. */
  instanceUrls?: string[];
  /** The load driver: where requests go (the router or the instances). */
  targetUrls?: string[];
}

export type ToWorker =
  /** `reusable`: when the run ends and left nothing alive, report `idle` and wait for the next init (pool.ts). */
  | { type: 'init'; init: WorkerInit; reusable?: boolean }
  /** Producers: begin the open-loop schedule at this instant (run clock, µs). */
  | { type: 'start'; startUs: number }
  /** Stop sending / consuming, flush the history, close the client, exit. */
  | { type: 'stop' }
  /** A fault acting inside this process starts or ends: its kind's `worker` hook does it
   * (harness/faults/contract.ts WorkerHooks). */
  | { type: 'fault'; kind: string; phase: 'start' | 'end'; args?: Record<string, unknown> }
  /** An in-process broker's answer to a call, and what it sends on its own (harness/workers/runner-link.ts). */
  | { type: 'broker-reply'; call: number; ok: boolean; value?: unknown; error?: string }
  | { type: 'broker-push'; link: number; msg: unknown };

export interface WorkerStats {
  sent: number;
  acked: number;
  failed: number;
  unknown: number;
  /** Process events with outcome ok (consumers). */
  applied: number;
  errors: number;
  /**
   * Consumers: applies the versioned store skipped because the key already held that version
   * or a newer one (a duplicate, or a message overtaken by a later one). The store is shared
   * by every consumer, so this is a live, group-wide count of order anomalies; the checker's
   * count after the run is the authoritative one.
   */
  stale: number;
  inFlight: number;
  /** Producers: how far behind the open-loop schedule the last send was, ms. */
  behindMs: number;
  /** Worst event-loop delay seen since the last report, ms. */
  loopLagMs: number;
  /** CPU use since the last report, in percent of one core. */
  cpuPercent: number;
  /** Producers: every planned message has been sent (and settled). */
  finished: boolean;
  /** The load driver: HTTP requests answered, by status (2xx counted together). */
  requests?: { sent: number; ok: number; failed: number };
  /** Consumers: rows this process's strategy wrote to the shared store (SQLite total_changes). */
  storeWrites?: number;
  /** Consumers: where the handling time went (see phases.ts). */
  phases?: ConsumerPhases;
  /**
   * A consumer under test (consumers.service), at its stop: the handling attempts it reported,
   * what makes the run incomplete (malformed or foreign reports), one line each, and the
   * service's last log lines.
   */
  service?: { started: number; problems: string[]; lastLog: string[] };
}

/** Every counter at zero. */
export function emptyStats(): WorkerStats {
  return { sent: 0, acked: 0, failed: 0, unknown: 0, applied: 0, errors: 0, stale: 0, inFlight: 0, behindMs: 0, loopLagMs: 0, cpuPercent: 0, finished: false };
}

/** How a worker role listens to the runner's messages (main.ts gives each role one). */
export type Inbox = (handler: (m: ToWorker) => void) => void;

export type FromWorker =
  | { type: 'ready'; detail?: Record<string, unknown> }
  | { type: 'stats'; stats: WorkerStats }
  | { type: 'log'; line: string }
  | { type: 'fatal'; message: string; detail?: string[]; exitCode?: number }
  | { type: 'stopped'; stats: WorkerStats }
  /** A reusable worker's run is over and left nothing alive: the process waits for another init. */
  | { type: 'idle' }
  /** A client of an in-process broker: open a link, call on it, close it. */
  | { type: 'broker-open'; link: number }
  /** Without `call`, a tell: nothing is sent back. */
  | { type: 'broker-call'; link: number; call?: number; method: string; args: unknown }
  | { type: 'broker-close'; link: number };
