import { loadBroker } from '../broker/registry.ts';
import type { HandlerEffect } from '../faults/contract.ts';
import type { ConsumerClient, Delivery, Settlement } from '../broker/contract.ts';
import { nowMicros, sleep } from '../clock.ts';
import { HistoryWriter } from '../history/writer.ts';
import { decodeMessage, type DecodedMessage } from '../workload/codec.ts';
import { Rng } from '../workload/rng.ts';
import { handlerTimeSampler } from '../consumer/handler-time.ts';
import { PoisonTracker } from '../consumer/poison.ts';
import { openStrategyStore } from '../consumer/strategies/open.ts';
import { concurrencyMode } from '../consumer/concurrency/registry.ts';
import { emptyStats, type FromWorker, type Inbox, type WorkerInit, type WorkerStats } from './protocol.ts';
import { loopLagMeter } from './loop-lag.ts';
import { cpuMeter } from './cpu-meter.ts';
import { WorkerFaults } from './fault-hooks.ts';
import { emptyPhases } from './phases.ts';
import { GroupCommit } from './group-commit.ts';
import { processEvent, type ProcessBase } from './process-event.ts';
import { groupedHandling, processBase } from './grouped-handling.ts';

/**
 * A consumer process of the run's group: takes deliveries from the broker client, runs them
 * through the concurrency mode, handles each (handler time, poison policy, the entity store
 * with the scenario's strategy), records one process event per handling attempt, and
 * settles the delivery.
 */
export async function runConsumer(init: WorkerInit, inbox: Inbox, send: (m: FromWorker) => void): Promise<void> {
  const scenario = init.scenario;
  const spec = scenario.consumers;
  const broker = await loadBroker(init.brokerKind);
  const history = new HistoryWriter(init.historyFile);
  const log = (line: string) => send({ type: 'log', line });
  const lag = loopLagMeter();
  const cpu = cpuMeter();
  const stats: WorkerStats = emptyStats();
  const phases = (stats.phases = emptyPhases());
  const clock = () => performance.now();
  const store = await openStrategyStore(init.storeFile, scenario);
  const rng = Rng.from(scenario.seed).fork(`consumer-${init.id}`);
  const handlerSpec = spec.overrides?.[init.id]?.handler ?? spec.handler;
  const handlerTime = handlerTimeSampler(handlerSpec, rng);
  const poison = new PoisonTracker(spec.poison);
  const mode = concurrencyMode(spec.concurrency.mode);
  const group = new GroupCommit(store, history, phases);
  /** Writes the open group, then anything else buffered (the file's order is the handling order). */
  const flushAll = () => {
    group.end();
    const t = performance.now();
    history.flush();
    phases.historyMs += performance.now() - t;
  };
  const faults = WorkerFaults.consumer({ id: init.id, log, flushHistory: flushAll });
  // Dropping and handling together, for the modes that conflate or batch.
  const together = groupedHandling({ consumer: init.id, history, stats, phases, store, poison, handlerTime, effects: () => faults.effects(), log, endGroup: () => group.end() });
  const scheduler = mode.scheduler(spec.concurrency.workers, { settings: spec.concurrency, handling: together.handling });
  let stopping = false;
  let wakeStop: (() => void) | undefined;

  inbox((m) => {
    faults.receive(m);
    if (m.type === 'stop') {
      stopping = true;
      wakeStop?.();
    }
  });

  const client: ConsumerClient = await broker.consumer(init.endpoint, init.settings, init.names, {
    id: init.id,
    maxInFlight: mode.maxInFlight(spec.concurrency.workers, spec.concurrency),
    onGroupEvent: (e) => {
      group.end();
      history.write({ type: 'rebalance', at: nowMicros(), consumer: init.id, lanes: e.lanes, generation: e.generation, phase: e.phase });
    },
    log,
    beforeCommit: () => group.end(),
  });
  // Grouped only while no fault acts in this worker: a fault's hooks (a kill after the apply,
  // a failing handler) see each message's effects written, as they were designed against.
  const groupable = () => client.commitsLater === true && faults.effects().next().done === true;

  const handle = async (d: Delivery, msg: DecodedMessage | null, received: number): Promise<void> => {
    const base: ProcessBase = processBase(init.id, d, msg);
    let attempt = 0;
    let settlement: Settlement = 'ack';
    let grouped = false;
    for (;;) {
      attempt++;
      const start = nowMicros();
      const key = msg?.key ?? '';
      const decision = msg ? poison.decide(key, msg.seq, msg.poison, attempt) : { action: 'give-up' as const, settle: 'dead-letter' as const };
      let t = clock();
      // No timer for a 0 ms handler: setTimeout(0) waits at least 1 ms, which held a lane
      // to about 700 messages per second.
      const ms = handlerTime();
      if (ms > 0) await sleep(ms);
      for (const f of faults.effects()) {
        const held = f.hold?.();
        if (held) await held;
      }
      phases.handlerMs += clock() - t;
      const ev = processEvent(base, received, start);
      const outage = failedByFault(faults.effects());
      if (outage) {
        ev.outcome = 'error';
        ev.end = nowMicros();
        stats.errors++;
        t = clock();
        group.end();
        history.write(ev);
        phases.historyMs += clock() - t;
        settlement = outage;
        break;
      }
      if (decision.action === 'handle' && msg) {
        // Only the consumers' strategy runs here; the others are replayed after the run.
        grouped = groupable();
        t = clock();
        if (grouped) ev.effect = group.apply(msg);
        else {
          group.end();
          ev.effect = store.apply(msg);
        }
        if (ev.effect !== 'applied') stats.stale++;
        ev.end = nowMicros();
        stats.applied++;
        phases.storeMs += clock() - t;
        t = clock();
        if (grouped) group.record(ev);
        else history.write(ev);
        phases.historyMs += clock() - t;
        for (const f of faults.effects()) f.afterApply?.();
        break;
      }
      ev.outcome = 'error';
      ev.end = nowMicros();
      stats.errors++;
      t = clock();
      group.end();
      history.write(ev);
      phases.historyMs += clock() - t;
      if (decision.action === 'retry') {
        await sleep(decision.retryAfterMs);
        continue;
      }
      settlement = decision.action === 'handle' ? 'dead-letter' : decision.settle;
      break;
    }
    // The handling's record reaches the file before its settlement reaches the broker: a process
    // killed after the ack must not leave an acked message that the history never saw handled
    // (the checker would call it lost, and the broker's redelivery rules would be blamed).
    // A grouped ack reaches the broker only after the group is written (beforeCommit).
    if (!grouped || settlement !== 'ack') flushAll();
    const t = clock();
    await d.settle(settlement).catch((e: Error) => log(`settle ${settlement} failed: ${e.message}`));
    phases.settleMs += clock() - t;
    phases.deliveries++;
    phases.lastUs = nowMicros();
  };

  await client.start(async (d) => {
    const received = nowMicros();
    if (phases.firstUs === 0) phases.firstUs = received;
    const msg = decodeMessage(d.payload);
    stats.inFlight = scheduler.inFlight + 1;
    await scheduler.accept(msg?.key ?? null, together.task({ d, msg, received }, () => handle(d, msg, received)));
    stats.inFlight = scheduler.inFlight;
  });
  await client.ready(60_000);
  send({ type: 'ready' });
  const timer = setInterval(() => {
    stats.inFlight = scheduler.inFlight;
    stats.storeWrites = store.writes();
    send({ type: 'stats', stats: { ...stats, loopLagMs: lag(), cpuPercent: cpu() } });
  }, 500);

  while (!stopping) await new Promise<void>((r) => (wakeStop = r));
  clearInterval(timer);
  faults.endAll();
  await Promise.race([scheduler.idle(), sleep(5_000)]);
  await client.close().catch((e: Error) => log(`close: ${e.message}`));
  group.end();
  stats.storeWrites = store.writes();
  store.close();
  history.close();
  stats.inFlight = scheduler.inFlight;
  send({ type: 'stopped', stats });
}

/** The settlement a failing-handlers fault imposes on this attempt, if one is active. */
function failedByFault(effects: Iterable<HandlerEffect>): Settlement | undefined {
  for (const f of effects) {
    const how = f.failWith?.();
    if (how) return how;
  }
  return undefined;
}
