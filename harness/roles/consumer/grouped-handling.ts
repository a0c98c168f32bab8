/**
 * The consumer's side of the hot-key defences among the modes (harness/consumer/concurrency/
 * modes/conflate.ts, batch.ts): dropping a superseded delivery, and handling several
 * deliveries of one key as one. The one-at-a-time path stays in consumer.ts; these record the
 * same process events, with `effect: conflated` for a dropped delivery and `batch: <size>` on
 * each delivery applied in a shared store transaction.
 */
import type { Delivery, Settlement } from '../../broker/contract.ts';
import type { Handling, Task } from '../../consumer/concurrency/contract.ts';
import type { PoisonTracker } from '../../consumer/poison.ts';
import type { EntityStore, Effect } from '../../consumer/entity-store.ts';
import type { HandlerEffect } from '../../faults/contract.ts';
import type { ProcessEvent } from '../../history/events.ts';
import type { HistoryWriter } from '../../history/writer.ts';
import type { DecodedMessage } from '../../workload/codec.ts';
import { nowMicros, sleep } from '../../clock.ts';
import type { WorkerStats } from '../../workers/protocol.ts';
import type { ConsumerPhases } from '../../workers/phases.ts';

const PARTS = Symbol('task parts');

/** What the consumer knows of one delivery when it hands its task to the mode. */
export interface TaskParts {
  d: Delivery;
  msg: DecodedMessage | null;
  received: number;
}

export interface GroupedContext {
  consumer: string;
  history: HistoryWriter;
  stats: WorkerStats;
  phases: ConsumerPhases;
  store: EntityStore;
  poison: PoisonTracker;
  handlerTime: () => number;
  effects: () => Iterable<HandlerEffect>;
  /** Where failed settlements are told (throttled: a broker may refuse many). */
  log(line: string): void;
  /**
   * Ends the consumer's open group commit (harness/roles/consumer/group-commit.ts): its store writes
   * commit and its records are written before anything of these, so the file keeps the
   * handling order and no record precedes its commit.
   */
  endGroup(): void;
}

/** The process event's fields that say which delivery it is. */
export function processBase(consumer: string, d: Delivery, msg: DecodedMessage | null) {
  return {
    type: 'process' as const,
    key: msg?.key ?? null,
    producer: msg?.producer ?? null,
    seq: msg?.seq ?? null,
    consumer,
    lane: d.lane,
    offset: d.offset,
    deliveryCount: d.deliveryCount,
    intended: msg?.intendedUs,
    stamp: msg?.stampMs,
  };
}

/** Tasks made with `task()` carry their parts; the modes see them as plain tasks. */
export function groupedHandling(ctx: GroupedContext): { task(parts: TaskParts, run: Task): Task; handling: Handling } {
  // Carried on the task itself: a WeakMap entry per message cost more (an ephemeron for the GC).
  const partsOf = (t: Task): TaskParts => {
    const p = (t as Task & { [PARTS]?: TaskParts })[PARTS];
    if (!p) throw new Error('a task the consumer did not make');
    return p;
  };

  const settle = async (d: Delivery, how: Settlement) => {
    const t = performance.now();
    await d.settle(how).catch((e: Error) => ctx.log(`settle ${how} failed: ${e.message}`));
    ctx.phases.settleMs += performance.now() - t;
    ctx.phases.deliveries++;
    ctx.phases.lastUs = nowMicros();
  };

  const write = (events: ProcessEvent[]) => {
    ctx.endGroup();
    const t = performance.now();
    for (const ev of events) ctx.history.write(ev);
    // The records reach the file before the settlements reach the broker (as in consumer.ts).
    ctx.history.flush();
    ctx.phases.historyMs += performance.now() - t;
  };

  /**
   * Plain: decoded, not poison, its key not parked, and no fault failing handlers now; and a
   * pure strategy (one that holds or reads its owner answers later, so it goes one at a time)
   * on a store whose transactions end at once (SQLite; PostgreSQL's go one at a time).
   */
  const plain = (p: TaskParts) =>
    ctx.store.strategy.pure &&
    ctx.store.synchronous &&
    p.msg !== null && !p.msg.poison && !ctx.poison.parkedKeys.has(p.msg.key) && ![...ctx.effects()].some((f) => f.failWith?.());

  /** Applies plain deliveries of one key as one: one handler time, one transaction. */
  const applyTogether = async (group: TaskParts[]) => {
    const start = nowMicros();
    let t = performance.now();
    const ms = ctx.handlerTime();
    if (ms > 0) await sleep(ms);
    for (const f of ctx.effects()) {
      const held = f.hold?.();
      if (held) await held;
    }
    ctx.phases.handlerMs += performance.now() - t;
    ctx.endGroup();
    t = performance.now();
    const done: { effect: Effect; end: number }[] = [];
    ctx.store.batch(() => {
      for (const p of group) {
        const effect = ctx.store.applyNow(p.msg!);
        // Each apply's own end, strictly after the previous one's: the checker orders applies
        // by end, so a reordered pair inside a batch stays visible.
        done.push({ effect, end: Math.max(nowMicros(), (done.at(-1)?.end ?? 0) + 1) });
      }
    });
    ctx.phases.storeMs += performance.now() - t;
    // One after another, as they were applied: the first carries the handler's wait (the
    // shared write), each next one starts where the previous one ended, so the key's handlings
    // never overlap in the history.
    write(group.map((p, i) => ({ ...processBase(ctx.consumer, p.d, p.msg), received: p.received, start: i === 0 ? start : done[i - 1]!.end, end: done[i]!.end, outcome: 'ok', effect: done[i]!.effect, batch: group.length })));
    for (const { effect } of done) {
      ctx.stats.applied++;
      if (effect !== 'applied') ctx.stats.stale++;
    }
    for (const f of ctx.effects()) for (let i = 0; i < group.length; i++) f.afterApply?.();
    await Promise.all(group.map((p) => settle(p.d, 'ack')));
  };

  const handling: Handling = {
    async drop(tasks) {
      const dropped = tasks.map(partsOf);
      const at = nowMicros();
      write(dropped.map((p) => ({ ...processBase(ctx.consumer, p.d, p.msg), received: p.received, start: at, end: at, outcome: 'ok', effect: 'conflated' })));
      ctx.stats.applied += dropped.length;
      await Promise.all(dropped.map((p) => settle(p.d, 'ack')));
    },
    async together(tasks) {
      // Plain runs of deliveries go together; anything else (poison, a parked key, a failing
      // fault, an undecodable payload) is handled alone in its place, so the key's order holds.
      let run: TaskParts[] = [];
      const flush = async () => {
        if (run.length) await applyTogether(run);
        run = [];
      };
      for (const task of tasks) {
        const p = partsOf(task);
        if (plain(p)) {
          run.push(p);
          continue;
        }
        await flush();
        await task();
      }
      await flush();
    },
  };
  return {
    task(p, run) {
      (run as Task & { [PARTS]?: TaskParts })[PARTS] = p;
      return run;
    },
    handling,
  };
}
