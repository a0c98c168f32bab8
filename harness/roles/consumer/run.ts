import { sleep } from '../../clock.ts';
import type { FromWorker, Inbox, WorkerInit } from '../../workers/protocol.ts';
import { applier } from './apply.ts';
import { openConsumer } from './context.ts';
import { openGate, type Renewals } from './gate.ts';
import { handler } from './handle.ts';
import { holding as holdingFor } from './hold.ts';
import { receive } from './receive.ts';
import { scheduler as schedulerFor } from './schedule.ts';
import { settler } from './settle.ts';
import { statsReporter } from './stats.ts';

/**
 * A consumer process of the run's group, one step per module: the broker's client behind the
 * delivery gate (gate.ts) gives deliveries (receive.ts) to the concurrency mode's scheduler
 * (schedule.ts), which runs each handling (handle.ts: handler time, fault effects, poison
 * policy), applied to the entity store with the scenario's strategy (apply.ts, hold.ts),
 * recorded as one process event per attempt (record.ts), and settled (settle.ts); the stats go
 * to the runner (stats.ts).
 */
export async function runConsumer(init: WorkerInit, inbox: Inbox, send: (m: FromWorker) => void): Promise<void> {
  const ctx = await openConsumer(init, send);
  let stopping = false;
  let wakeStop: (() => void) | undefined;
  inbox((m) => {
    ctx.faults.receive(m);
    if (m.type === 'stop') {
      stopping = true;
      wakeStop?.();
    }
  });

  const renewals: Renewals = { ok: 0, failed: 0 };
  const client = await openGate(ctx, renewals);
  const holding = holdingFor(ctx);
  const handle = handler(ctx, client, applier(ctx, holding), settler(ctx));
  const schedule = schedulerFor(ctx);
  await receive(ctx, client, schedule, handle, holding);
  await client.ready(60_000);
  send({ type: 'ready' });
  const stats = statsReporter(ctx, schedule.scheduler, holding, renewals);

  while (!stopping) await new Promise<void>((r) => (wakeStop = r));
  stats.stop();
  holding.stop();
  ctx.faults.endAll();
  const idleWait = new AbortController();
  await Promise.race([schedule.scheduler.idle(), sleep(5_000, idleWait.signal)]);
  idleWait.abort(); // no timer left behind (a reused process: harness/workers/pool.ts)
  stats.writeCosts();
  ctx.ownerReads?.close();
  await client.close().catch((e: Error) => ctx.log(`close: ${e.message}`));
  await ctx.close();
  ctx.stats.inFlight = schedule.scheduler.inFlight;
  send({ type: 'stopped', stats: ctx.stats });
}
