/**
 * The types of the scenario's parts that plug-ins fill in (sections.ts marks them): what the
 * harness reads of them, whatever the plug-in. The plug-ins' own contracts use these.
 */

/** `workload.gateway` as the scenario resolves it. */
export interface GatewaySpec {
  /** Service instances, separate processes: i1..iN. */
  instances: number;
  mode: string;
  /** autocannon connections (each closed loop: one request at a time). */
  connections: number;
  /** Outbox relays, one per lane (default: the broker's lanes, else 1). */
  relays?: number;
  /** autocannon's request timeout, s. */
  timeoutS: number;
}

/** `consumers.strategy` resolved to an object: the kind and its options. */
export interface StrategyOptions {
  kind: string;
  [option: string]: unknown;
}
