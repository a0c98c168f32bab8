import type { ConsumerClient } from '../../broker/contract.ts';
import type { Scheduler } from '../../consumer/concurrency/contract.ts';
import { nowMicros } from '../../clock.ts';
import { decodeMessage } from '../../workload/codec.ts';
import type { ConsumerContext } from './context.ts';
import type { Handle } from './handle.ts';
import type { Holding } from './hold.ts';
import type { MakeTask } from './schedule.ts';

/**
 * Takes the client's deliveries: each is decoded and given to the mode's scheduler as a task
 * that handles it. The client's promise resolves when the mode took the delivery (in partition
 * mode: handled it), which is when the gate hands out the lane's next one; a delivery handled
 * before the scheduler returned gives the client no promise at all.
 */
export async function receive(
  ctx: ConsumerContext,
  client: ConsumerClient,
  schedule: { scheduler: Scheduler; task: MakeTask },
  handle: Handle,
  holding: Holding,
): Promise<void> {
  const { stats, phases } = ctx;
  const { scheduler, task } = schedule;
  const runId = ctx.init.names.runId;
  const accepted = () => {
    stats.inFlight = scheduler.inFlight;
    holding.poke();
  };
  // Not an async function: its frame and await were one more promise per message.
  await client.start((d) => {
    const received = nowMicros();
    if (phases.firstUs === 0) phases.firstUs = received;
    const msg = decodeMessage(d.payload);
    // Another run's message on a destination runs share: settled unseen, never this run's history.
    if (msg?.run !== undefined && msg.run !== runId) return d.settle('ack').catch((e: Error) => ctx.log(`settling another run's message failed: ${e.message}`));
    stats.inFlight = scheduler.inFlight + 1;
    const taken = scheduler.accept(msg?.key ?? null, task(d, msg, received, () => handle(d, msg, received)));
    if (taken === undefined) return accepted();
    return taken.then(accepted);
  });
}
