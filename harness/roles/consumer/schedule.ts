import type { Scheduler } from '../../consumer/concurrency/contract.ts';
import type { Delivery } from '../../broker/contract.ts';
import type { DecodedMessage } from '../../workload/codec.ts';
import type { ConsumerContext } from './context.ts';
import { groupedHandling } from './grouped-handling.ts';
import type { Task } from '../../consumer/concurrency/contract.ts';

/** Makes a delivery's task for the mode: `run` itself, carrying the delivery when the mode groups tasks. */
export type MakeTask = (d: Delivery, msg: DecodedMessage | null, received: number, run: Task) => Task;

/**
 * The concurrency mode's scheduler for this process (harness/consumer/concurrency/), with the
 * handling the hot-key modes use to drop superseded deliveries and handle a key's deliveries
 * together (grouped-handling.ts).
 */
export function scheduler(ctx: ConsumerContext): { scheduler: Scheduler; task: MakeTask } {
  const { init, history, stats, phases, store, poison, handlerTime, settleLog, faults, group, spec } = ctx;
  const together = groupedHandling({ consumer: init.id, history, stats, phases, store, poison, handlerTime, effects: () => faults.effects(), log: settleLog, endGroup: () => group.end() });
  return {
    scheduler: ctx.mode.scheduler(spec.concurrency.workers, { settings: spec.concurrency, handling: together.handling }),
    task: ctx.mode.groups ? (d, msg, received, run) => together.task({ d, msg, received }, run) : (_d, _msg, _received, run) => run,
  };
}
