import { monitorEventLoopDelay } from 'node:perf_hooks';

/** Worst event-loop delay since the last call, in ms: the harness watching itself. */
export function loopLagMeter(): () => number {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return () => {
    const worst = h.max / 1e6;
    h.reset();
    return Number.isFinite(worst) ? Math.round(worst) : 0;
  };
}
