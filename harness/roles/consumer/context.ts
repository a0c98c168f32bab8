/**
 * What the consumer worker's steps share: the run's settings for this consumer, its history and
 * stats, the entity store with the scenario's strategy, the open group commit, the poison
 * policy, and the fault hooks acting in this process. Each step (gate, receive, schedule,
 * handle, apply, settle, hold, stats) takes it and keeps what it uses in locals.
 */
import { nowMicros } from '../../clock.ts';
import { handlerTimeSampler } from '../../consumer/handler-time.ts';
import { PoisonTracker } from '../../consumer/poison.ts';
import { ParkingLot } from '../../consumer/parking-lot.ts';
import { openDatabase } from '../../consumer/entity-store.ts';
import { openStrategyStore } from '../../consumer/strategies/open.ts';
import type { EntityStore } from '../../consumer/entity-store.ts';
import type { StrategyContext } from '../../consumer/strategies/contract.ts';
import { concurrencyMode } from '../../consumer/concurrency/registry.ts';
import type { ConcurrencyMode } from '../../consumer/concurrency/contract.ts';
import type { HandlerEffect } from '../../faults/contract.ts';
import { HistoryWriter } from '../../history/writer.ts';
import { newHistogram, record } from '../../metrics/histogram.ts';
import { ownerClient } from '../../owner/client.ts';
import type { ConsumerSpec } from '../../spec/types.ts';
import { Rng } from '../../workload/rng.ts';
import { WorkerFaults } from '../../faults/worker-hooks.ts';
import { emptyPhases, type ConsumerPhases } from '../../workers/phases.ts';
import { emptyStats, type FromWorker, type WorkerInit, type WorkerStats } from '../../workers/protocol.ts';
import { GroupCommit } from './group-commit.ts';
import { settleFailureLog } from './settle-log.ts';

export interface ConsumerContext {
  init: WorkerInit;
  spec: ConsumerSpec;
  handlerSpec: ConsumerSpec['handler'];
  log(line: string): void;
  /** For failed settlements: a broker that refuses many (expired locks) says so once per few seconds, with a count. */
  settleLog(line: string): void;
  send(m: FromWorker): void;
  history: HistoryWriter;
  stats: WorkerStats;
  phases: ConsumerPhases;
  mode: ConcurrencyMode;
  /** Deliveries this consumer holds unsettled at most: the client's cap, told to the strategy. */
  inFlightCap: number;
  /** What the strategy may use: the clock, markers, the owner. */
  strategyContext: StrategyContext;
  store: EntityStore;
  group: GroupCommit;
  poison: PoisonTracker;
  handlerTime: () => number;
  /** The park-key policy's lot, beside the entities in the run's store file (it outlives the run). */
  lot?: ParkingLot;
  faults: WorkerFaults<HandlerEffect>;
  /** The owner's reads, timed and counted, when the run has an owner. */
  ownerReads?: { histogram: ReturnType<typeof newHistogram>; reads: number; errors: number; close(): void };
  /** Writes the open group, then anything else buffered (the file's order is the handling order). */
  flushAll(): void;
  /** Closes what the context opened (after the client: its last commits may still write). */
  close(): Promise<void>;
}

export async function openConsumer(init: WorkerInit, send: (m: FromWorker) => void): Promise<ConsumerContext> {
  const spec = init.scenario.consumers;
  const history = new HistoryWriter(init.historyFile);
  const log = (line: string) => send({ type: 'log', line });
  const stats = emptyStats();
  const phases = (stats.phases = emptyPhases());
  const ownerReads = init.ownerUrl ? { histogram: newHistogram(), reads: 0, errors: 0, close: () => {} } : undefined;
  const owner = init.ownerUrl
    ? ownerClient(init.ownerUrl, 2_000, (us, ok) => {
        ownerReads!.reads++;
        if (!ok) ownerReads!.errors++;
        record(ownerReads!.histogram, us);
      })
    : undefined;
  if (owner && ownerReads) ownerReads.close = () => owner.close();
  const mode = concurrencyMode(spec.concurrency.mode);
  const inFlightCap = mode.maxInFlight(spec.concurrency.workers, spec.concurrency);
  const strategyContext: StrategyContext = {
    now: nowMicros,
    inFlightCap,
    mark: (name, detail) => history.write({ type: 'mark', at: nowMicros(), name, detail: { consumer: init.id, ...detail } }),
    ...(owner ? { fetchOwner: (key: string) => owner.fetch(key) } : {}),
  };
  const store = await openStrategyStore(init.store ?? init.storeFile, init.scenario, strategyContext);
  const handlerSpec = spec.overrides?.[init.id]?.handler ?? spec.handler;
  const lotDb = spec.poison?.policy === 'park-key' ? openDatabase(init.storeFile) : undefined;
  const group = new GroupCommit(store, history, phases);
  const flushAll = () => {
    group.end();
    const t = performance.now();
    history.flush();
    phases.historyMs += performance.now() - t;
  };
  return {
    init, spec, handlerSpec, log, send, settleLog: settleFailureLog(log), history, stats, phases, mode, inFlightCap, strategyContext, store, group, flushAll, ownerReads,
    poison: new PoisonTracker(spec.poison),
    handlerTime: handlerTimeSampler(handlerSpec, Rng.from(init.scenario.seed).fork(`consumer-${init.id}`)),
    ...(lotDb ? { lot: new ParkingLot(lotDb) } : {}),
    faults: WorkerFaults.consumer({ id: init.id, log, flushHistory: flushAll }, undefined, init.scenario.faults.map((f) => f.kind)),
    async close() {
      group.end();
      stats.storeWrites = store.writes();
      await store.close();
      lotDb?.close();
      history.close();
    },
  };
}
