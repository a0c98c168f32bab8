import { readFileSync } from 'node:fs';

/**
 * The host's CPU use since the last call, in percent of all its CPUs (from /proc/stat; 0 where
 * there is none). A harness sharing a saturated host cannot be sure of its own timing.
 */
export function hostCpuMeter(): () => number {
  let last = readTimes();
  return () => {
    const now = readTimes();
    const total = now.total - last.total;
    const busy = total - (now.idle - last.idle);
    last = now;
    return total > 0 ? Math.round((busy / total) * 100) : 0;
  };
}

function readTimes(): { total: number; idle: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    // cpu  user nice system idle iowait irq softirq steal ...
    const f = line.trim().split(/\s+/).slice(1).map(Number);
    return { total: f.slice(0, 8).reduce((a, b) => a + b, 0), idle: (f[3] ?? 0) + (f[4] ?? 0) };
  } catch {
    return { total: 0, idle: 0 };
  }
}
