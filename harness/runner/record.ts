/**
 * What one run is given (RunOptions) and what it leaves for the analysis (RunRecord). Kept apart
 * from the runner so that the analysis, the report's fixtures and the gateway's figures can read
 * a record without loading the stages that fill it.
 */
import type { Deployment, RuntimeKind } from '../broker/contract.ts';
import type { FaultRecord } from '../faults/timeline.ts';
import type { Scenario } from '../spec/types.ts';
import type { WorkerHandle } from '../workers/handle.ts';
import type { WorkerStats } from '../workers/protocol.ts';
import type { CpuFigures } from './cpu-watch.ts';
import type { DrainOutcome } from './drain-rules.ts';
import type { AgentPlacement } from './placement.ts';

export interface RunOptions {
  runtime: RuntimeKind;
  /** Parent folder of run folders (results/). */
  resultsDir: string;
  /** Keep the run's topics and queues after the run. */
  keep: boolean;
  allowDestructive: boolean;
  external?: Record<string, unknown>;
  runId?: string;
  log?: (line: string) => void;
  /** Show progress (a bar on a terminal, periodic lines otherwise). Default true. */
  progress?: boolean;
  /** A live deployment to use instead of deploying (benchmarks, suites); it is not stopped. */
  deployment?: Deployment;
  /** Adopt a recorded running broker of the same setup (default true); false: deploy its own. */
  reuseBrokers?: boolean;
  /** convoy agents that run this run's producers or consumers (`--agent`; harness/runner/placement.ts). */
  agents?: AgentPlacement[];
}

/** The name of one of a run's stages (`STAGES` in harness/runner/run.ts): a run that fails says at which. */
export type RunStage = string;

/** What happened, for the analysis: the run's files and why it may be incomplete. */
export interface RunRecord {
  runId: string;
  runDir: string;
  historyFile: string;
  storeFile: string;
  scenario: Scenario;
  deployment?: Pick<Deployment, 'broker' | 'runtime' | 'versions' | 'emulator' | 'endpoint' | 'cluster'>;
  /** Start of the producers' schedule and of the measured phase (after warm-up), run clock. */
  startUs: number;
  measureStartUs: number;
  endUs: number;
  faults: FaultRecord[];
  producerStats: Record<string, WorkerStats>;
  consumerStats: Record<string, WorkerStats>;
  /** Reasons the run could not complete as planned: the verdict is then `unknown`. */
  incomplete: string[];
  /** Worst event-loop lag any worker reported, ms. */
  worstLoopLagMs: number;
  /** CPU use of the host and of each worker while the producers sent. */
  cpu?: CpuFigures;
  drain: DrainOutcome;
  /** Order-service runs: the load driver's and router's last stats, and the service's store. */
  gateway?: { driver: WorkerStats; services: Record<string, WorkerStats>; storeFile: string };
  /** The agents that ran some of its workers: each one's address, host, cores and roles. */
  agents?: Array<{ agent: string; host: string; cores: number; roles: string[]; workers: string[] }>;
  /** Set when the run stopped sending early because its verdict was already unknown. */
  gaveUp: { atMs: number; reason: string } | null;
  interrupted: boolean;
  /** The error that stopped the run, if one did, and the stage it stopped (deploy, provision, ...). */
  failure?: Error;
  failedStage?: RunStage;
}

/** Each publisher's last stats; a restarted one keeps its name, its earlier processes count as <id>.1, <id>.2, ... */
export function keepPublisherStats(record: RunRecord, publishers: readonly WorkerHandle[]): void {
  for (const p of publishers) {
    let id = p.id;
    for (let n = 1; id in record.producerStats; n++) id = `${p.id}.${n}`;
    record.producerStats[id] = p.stats;
  }
}
