import { loadBroker } from '../broker/registry.ts';
import type { HandlerEffect } from '../faults/contract.ts';
import type { ConsumerClient, Delivery, Settlement } from '../broker/contract.ts';
import { nowMicros, sleep } from '../clock.ts';
import { HistoryWriter } from '../history/writer.ts';
import { decodeMessage, type DecodedMessage } from '../workload/codec.ts';
import { Rng } from '../workload/rng.ts';
import { handlerTimeSampler } from '../consumer/handler-time.ts';
import { PoisonTracker } from '../consumer/poison.ts';
import { ParkingLot } from '../consumer/parking-lot.ts';
import { openDatabase } from '../consumer/store.ts';
import { openStrategyStore } from '../consumer/strategies/open.ts';
import { CAP_STALL_END_MARK, CAP_STALL_MARK, COSTS_MARK, type StrategyCosts } from '../consumer/strategies/costs.ts';
import type { Released, StrategyContext } from '../consumer/strategies/contract.ts';
import type { Effect } from '../consumer/store.ts';
import { ownerClient } from '../owner/client.ts';
import { encode, newHistogram, record } from '../metrics/histogram.ts';
import { concurrencyMode } from '../consumer/concurrency/registry.ts';
import { emptyStats, type FromWorker, type Inbox, type WorkerInit, type WorkerStats } from './protocol.ts';
import { loopLagMeter } from './loop-lag.ts';
import { cpuMeter } from './cpu-meter.ts';
import { WorkerFaults } from './fault-hooks.ts';
import { emptyPhases } from './phases.ts';
import type { ProcessEvent } from '../history/events.ts';
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
  // What the strategy may use here: the clock, markers, the owner (reads timed and counted).
  const ownerReads = newHistogram();
  const readCounts = { ownerReads: 0, ownerReadErrors: 0 };
  const owner = init.ownerUrl
    ? ownerClient(init.ownerUrl, 2_000, (us, ok) => {
        readCounts.ownerReads++;
        if (!ok) readCounts.ownerReadErrors++;
        record(ownerReads, us);
      })
    : undefined;
  const mode = concurrencyMode(spec.concurrency.mode);
  /** Deliveries this consumer holds unsettled at most: the client's cap, told to the strategy. */
  const inFlightCap = mode.maxInFlight(spec.concurrency.workers, spec.concurrency);
  const context: StrategyContext = {
    now: nowMicros,
    inFlightCap,
    mark: (name, detail) => history.write({ type: 'mark', at: nowMicros(), name, detail: { consumer: init.id, ...detail } }),
    ...(owner ? { fetchOwner: (key: string) => owner.fetch(key) } : {}),
  };
  const store = await openStrategyStore(init.storeFile, scenario, context);
  let peakRssBytes = process.memoryUsage().rss;
  const rng = Rng.from(scenario.seed).fork(`consumer-${init.id}`);
  const handlerSpec = spec.overrides?.[init.id]?.handler ?? spec.handler;
  const handlerTime = handlerTimeSampler(handlerSpec, rng);
  const poison = new PoisonTracker(spec.poison);
  // The park-key policy's lot, beside the entities in the run's store file (it outlives the run).
  const lotDb = spec.poison?.policy === 'park-key' ? openDatabase(init.storeFile) : undefined;
  const lot = lotDb ? new ParkingLot(lotDb) : undefined;
  const group = new GroupCommit(store, history, phases);
  /** Lock or lease renewals the delivery gate made (held messages are renewed until settled). */
  const renewals = { ok: 0, failed: 0 };
  /** Writes the open group, then anything else buffered (the file's order is the handling order). */
  const flushAll = () => {
    group.end();
    const t = performance.now();
    history.flush();
    phases.historyMs += performance.now() - t;
  };
  const faults = WorkerFaults.consumer({ id: init.id, log, flushHistory: flushAll }, undefined, init.scenario.faults.map((f) => f.kind));
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
    maxInFlight: inFlightCap,
    onGroupEvent: (e) => {
      group.end();
      history.write({ type: 'rebalance', at: nowMicros(), consumer: init.id, lanes: e.lanes, generation: e.generation, phase: e.phase });
    },
    log,
    beforeCommit: () => group.end(),
    onRenewal: (ok) => void (ok ? renewals.ok++ : renewals.failed++),
  });
  // Grouped only while no fault acts in this worker: a fault's hooks (a kill after the apply,
  // a failing handler) see each message's effects written, as they were designed against.
  // And only for a pure strategy: one that holds or reads its owner answers later.
  const groupable = () => client.commitsLater === true && store.strategy.pure && faults.effects().next().done === true;

  const handleSlowly = async (d: Delivery, msg: DecodedMessage | null, received: number): Promise<void> => {
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
        if (grouped) {
          if (!applyInGroup(ev, msg)) settlement = 'requeue';
          else for (const f of faults.effects()) f.afterApply?.();
          break;
        }
        t = clock();
        let effect;
        /** When the apply took effect: stamped before anything else of this process can run (see below). */
        let appliedAt: number | undefined;
        try {
          group.end();
          const pending = store.apply(msg);
          // A synchronous apply is stamped at once: after an await, other handlings of this
          // process (resumed together after a stall, say) apply first and this end would read
          // later than its commit; an apply that answers later stamps itself, per key.
          if (typeof pending === 'string') appliedAt = store.appliedAt(msg) ?? nowMicros();
          effect = await pending;
          appliedAt ??= store.appliedAt(msg);
        } catch (e) {
          applyFailed(ev, e);
          settlement = 'requeue';
          break;
        }
        if (effect === 'held') {
          // Unsettled until the strategy releases it (it keeps counting toward the in-flight cap).
          phases.storeMs += clock() - t;
          context.mark('held', { key: msg.key, producer: msg.producer, seq: msg.seq });
          holding.set(heldId(msg), { d, ev });
          capStall.update(holding.size);
          return;
        }
        ev.effect = effect;
        if (ev.effect !== 'applied') stats.stale++;
        // The strategy's own stamp when it has one for this apply (taken inside its transaction).
        ev.end = appliedAt !== undefined && appliedAt >= start ? appliedAt : nowMicros();
        stats.applied++;
        phases.storeMs += clock() - t;
        t = clock();
        history.write(ev);
        phases.historyMs += clock() - t;
        for (const f of faults.effects()) f.afterApply?.();
        break;
      }
      ev.outcome = 'error';
      ev.end = nowMicros();
      stats.errors++;
      if (decision.action === 'park' && msg && lot) {
        lot.park({ key: msg.key, producer: msg.producer, seq: msg.seq, reason: decision.parkKey ? 'poison' : 'key-parked', consumer: init.id, at: ev.end });
      }
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
    await settleHandled(d, settlement, grouped);
  };

  /**
   * The usual handling without an async frame of its own (issue 29: a frame was about a
   * kilobyte per message): a decoded message, a 0 ms handler, no poison policy, and a grouped
   * apply (no fault acting, a pure strategy). Exactly what handleSlowly does for it, which
   * takes everything else.
   */
  const atOnce = handlerSpec.kind === 'constant' && handlerSpec.ms === 0 && !spec.poison;
  const handle = (d: Delivery, msg: DecodedMessage | null, received: number): Promise<void> => {
    if (!atOnce || !msg || !groupable()) return handleSlowly(d, msg, received);
    const ev = processEvent(processBase(init.id, d, msg), received, nowMicros());
    return settleHandled(d, applyInGroup(ev, msg) ? 'ack' : 'requeue', true);
  };

  /**
   * Applies a message in the open group commit and records it there (true); or records the
   * failed apply (false: the message is given back).
   */
  const applyInGroup = (ev: ProcessEvent, msg: DecodedMessage): boolean => {
    let t = clock();
    let effect: Effect;
    try {
      effect = group.apply(msg);
    } catch (e) {
      applyFailed(ev, e);
      return false;
    }
    ev.effect = effect;
    if (effect !== 'applied') stats.stale++;
    ev.end = nowMicros();
    stats.applied++;
    phases.storeMs += clock() - t;
    t = clock();
    group.record(ev);
    phases.historyMs += clock() - t;
    return true;
  };

  /** The strategy could not apply it (its owner did not answer): a handler error, recorded. */
  const applyFailed = (ev: ProcessEvent, e: unknown) => {
    log(`apply failed: ${(e as Error).message}`);
    ev.outcome = 'error';
    ev.end = nowMicros();
    stats.errors++;
    group.end();
    history.write(ev);
  };

  const settleHandled = (d: Delivery, settlement: Settlement, grouped: boolean): Promise<void> => {
    // The handling's record reaches the file before its settlement reaches the broker: a process
    // killed after the ack must not leave an acked message that the history never saw handled
    // (the checker would call it lost, and the broker's redelivery rules would be blamed).
    // A grouped ack reaches the broker only after the group is written (beforeCommit).
    if (!grouped || settlement !== 'ack') flushAll();
    const t = clock();
    // Arrows passed straight on: a named one is renamed per call (tsx keeps function names).
    return d.settle(settlement).then(
      () => settledSince(t),
      (e: Error) => {
        log(`settle ${settlement} failed: ${e.message}`);
        settledSince(t);
      },
    );
  };
  const settledSince = (t: number) => {
    phases.settleMs += clock() - t;
    phases.deliveries++;
    phases.lastUs = nowMicros();
  };

  /** Deliveries the strategy holds, unsettled, by message; they count toward the in-flight cap. */
  const holding = new Map<string, { d: Delivery; ev: ProcessEvent }>();
  const heldId = (m: { key: string; producer: string | null; seq: number }) => `${m.producer ?? ''}\u0000${m.key}\u0000${m.seq}`;
  let releasing = false;
  /** Records and acknowledges what the strategy released: its apply happened at release. */
  const releaseTick = async () => {
    if (releasing || holding.size === 0) return;
    releasing = true;
    try {
      const released = await store.release();
      const settle: Delivery[] = [];
      for (const r of released) {
        const h = holding.get(heldId(r));
        if (!h) continue;
        holding.delete(heldId(r));
        history.write({ ...h.ev, held: h.ev.start, start: r.start, end: r.at, effect: r.effect });
        stats.applied++;
        if (r.effect !== 'applied') stats.stale++;
        settle.push(h.d);
      }
      capStall.update(holding.size);
      if (settle.length === 0) return;
      // As for every handling: its record reaches the file before its ack reaches the broker.
      history.flush();
      for (const d of settle) await d.settle('ack').catch((e: Error) => log(`settle ack failed: ${e.message}`));
    } catch (e) {
      log(`releasing held messages failed: ${(e as Error).message}`);
    } finally {
      releasing = false;
    }
  };
  const releaser = setInterval(() => void releaseTick(), 10);
  const capStall = capStallMeter(inFlightCap, context.mark);

  /** The mode took a delivery (in partition mode: handled it). */
  const accepted = () => {
    stats.inFlight = scheduler.inFlight;
    if (holding.size > 0) void releaseTick();
  };
  // Not an async function: its frame and await were one more promise per message.
  await client.start((d) => {
    const received = nowMicros();
    if (phases.firstUs === 0) phases.firstUs = received;
    const msg = decodeMessage(d.payload);
    stats.inFlight = scheduler.inFlight + 1;
    return scheduler.accept(msg?.key ?? null, together.task({ d, msg, received }, () => handle(d, msg, received))).then(accepted);
  });
  await client.ready(60_000);
  send({ type: 'ready' });
  const timer = setInterval(() => {
    peakRssBytes = Math.max(peakRssBytes, process.memoryUsage().rss);
    stats.inFlight = scheduler.inFlight;
    stats.storeWrites = store.writes();
    send({ type: 'stats', stats: { ...stats, loopLagMs: lag(), cpuPercent: cpu() } });
  }, 500);

  while (!stopping) await new Promise<void>((r) => (wakeStop = r));
  clearInterval(timer);
  clearInterval(releaser);
  faults.endAll();
  const idleWait = new AbortController();
  await Promise.race([scheduler.idle(), sleep(5_000, idleWait.signal)]);
  idleWait.abort(); // no timer left behind (a reused process: pool.ts)
  // The strategy's costs, for the result (costs.ts); held messages still unsettled go back to the broker with the client.
  const costs: StrategyCosts = store.costs();
  const peaks = { ...costs.peaks, peakRssBytes: Math.max(peakRssBytes, process.memoryUsage().rss) };
  // A holding strategy's renewals count even when none was made (the broker's client renews on its own, or has no lock).
  const renewed = store.holds ? { renewals: renewals.ok, renewalFailures: renewals.failed } : {};
  const counts = { ...costs.counts, ...(owner ? readCounts : {}), ...capStall.counts(), ...renewed };
  const histograms = owner && ownerReads.totalCount > 0 ? { ...costs.histograms, ownerRead: encode(ownerReads) } : costs.histograms;
  history.write({ type: 'mark', at: nowMicros(), name: COSTS_MARK, detail: { consumer: init.id, strategy: store.strategy.name, counts, peaks, histograms } });
  owner?.close();
  await client.close().catch((e: Error) => log(`close: ${e.message}`));
  group.end();
  stats.storeWrites = store.writes();
  store.close();
  lotDb?.close();
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

/**
 * When held messages fill the in-flight cap, the consumer gets nothing more: its lanes stall
 * until a release. Counts those stalls and their time (ms), for the strategy's costs, and marks
 * each one's start and end in the history (CAP_STALL_MARK), so the result says when.
 */
function capStallMeter(cap: number, mark: (name: string, detail: Record<string, unknown>) => void) {
  let since: number | undefined;
  let stalls = 0;
  let stalledMs = 0;
  return {
    update(held: number) {
      if (held >= cap && since === undefined) {
        since = performance.now();
        stalls++;
        mark(CAP_STALL_MARK, { held, cap });
      } else if (held < cap && since !== undefined) {
        const ms = performance.now() - since;
        stalledMs += ms;
        since = undefined;
        mark(CAP_STALL_END_MARK, { ms: Math.round(ms) });
      }
    },
    counts(): Record<string, number> {
      if (stalls === 0) return {};
      return { capStalls: stalls, capStalledMs: Math.round(stalledMs + (since === undefined ? 0 : performance.now() - since)) };
    },
  };
}
