import type { Scheduler } from '../../consumer/concurrency/contract.ts';
import type { ConsumerContext } from './context.ts';
import { groupedHandling, type TaskParts } from './grouped-handling.ts';
import type { Task } from '../../consumer/concurrency/contract.ts';

/**
 * The concurrency mode's scheduler for this process (harness/consumer/concurrency/), with the
 * handling the hot-key modes use to drop superseded deliveries and handle a key's deliveries
 * together (grouped-handling.ts).
 */
export function scheduler(ctx: ConsumerContext): { scheduler: Scheduler; task(parts: TaskParts, run: Task): Task } {
  const { init, history, stats, phases, store, poison, handlerTime, settleLog, faults, group, spec } = ctx;
  const together = groupedHandling({ consumer: init.id, history, stats, phases, store, poison, handlerTime, effects: () => faults.effects(), log: settleLog, endGroup: () => group.end() });
  return {
    scheduler: ctx.mode.scheduler(spec.concurrency.workers, { settings: spec.concurrency, handling: together.handling }),
    task: together.task,
  };
}
