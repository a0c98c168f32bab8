import { monitorEventLoopDelay } from 'node:perf_hooks';

/** The meters of this process's current run (each samples the loop every 10 ms until stopped). */
const running = new Set<ReturnType<typeof monitorEventLoopDelay>>();

/** Worst event-loop delay since the last call, in ms: the harness watching itself. */
export function loopLagMeter(): () => number {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  running.add(h);
  return () => {
    const worst = h.max / 1e6;
    h.reset();
    return Number.isFinite(worst) ? Math.round(worst) : 0;
  };
}

/** Stops every meter made so far: the worker's run is over (a reused process starts afresh). */
export function stopLoopLagMeters(): void {
  for (const h of running) h.disable();
  running.clear();
}
