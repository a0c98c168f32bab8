/**
 * The runner–worker protocol as the code sees it: the messages' types (from their schemas,
 * messages.ts: this module loads no schema library, so a worker can import it), the inbox a
 * role listens on, and every counter at zero. Workers never share memory with the runner:
 * they get plain JSON, one line at a time (docs/worker-protocol.md), and write their own
 * history file, which the runner merges at the end.
 */
import type { Static } from '@sinclair/typebox';
import type { BrokerSettings, Endpoint, RunNames } from '../broker/contract.ts';
import type { Scenario } from '../spec/types.ts';
import type * as M from './messages.ts';

export { WORKER_PROTOCOL_VERSION } from './message-names.ts';

export type WorkerStats = Static<typeof M.Stats>;
export type GatewayInit = Static<typeof M.GatewayInit>;

/** What one worker is and does in one run; the parts the schema leaves open, typed. */
export type WorkerInit = Omit<Static<typeof M.Init>, 'endpoint' | 'settings' | 'names' | 'scenario'> & {
  endpoint: Endpoint;
  /** Broker settings with this worker's overrides merged in. */
  settings: BrokerSettings;
  names: RunNames;
  scenario: Scenario;
};

/** The order service's processes (harness/gateway/): instances, the key-affine router, outbox relays, the load driver. */
export type GatewayRole = Exclude<WorkerInit['role'], 'producer' | 'consumer'>;

export type ToWorker = Exclude<M.ToWorkerMessage, { type: 'init' }> | { type: 'init'; init: WorkerInit; reusable?: boolean };
export type FromWorker = M.FromWorkerMessage;

/** Every counter at zero. */
export function emptyStats(): WorkerStats {
  return { sent: 0, acked: 0, failed: 0, unknown: 0, applied: 0, errors: 0, stale: 0, inFlight: 0, behindMs: 0, loopLagMs: 0, cpuPercent: 0, finished: false };
}

/** How a worker role listens to the runner's messages (main.ts gives each role one). */
export type Inbox = (handler: (m: ToWorker) => void) => void;
