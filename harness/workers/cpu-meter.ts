/**
 * This process's CPU use since the last call, in percent of one core (100 = one core fully
 * busy): a worker that sits at 100% cannot be trusted to keep its schedule.
 */
export function cpuMeter(): () => number {
  let last = process.cpuUsage();
  let lastAt = performance.now();
  return () => {
    const now = performance.now();
    const used = process.cpuUsage(last);
    const wallMs = now - lastAt;
    last = process.cpuUsage();
    lastAt = now;
    return wallMs > 0 ? Math.round(((used.user + used.system) / 1000 / wallMs) * 100) : 0;
  };
}
