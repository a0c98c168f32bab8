/**
 * The history's `clock` events, read: which worker ran on which host, and how to read a time
 * that host stamped on the runner's clock. Between two measurements the offset is interpolated
 * (the host's drift over the run); before the first and after the last, the nearest holds. A
 * host's uncertainty is the largest of its measurements' (every measurement bounds its offset,
 * and the interpolation between two of them stays within the larger when the drift is steady).
 */
import type { ClockEvent } from './events.ts';

export interface HostClock {
  host: string;
  /** Measurements in the host's own time order: the host's clock (at + offset) and its offset, µs. */
  readonly hostAt: number[];
  readonly offset: number[];
  /** The largest uncertainty of its measurements (µs). */
  uncertainty: number;
  /** Its offset change over the run per second of the runner's clock, in parts per million. */
  driftPpm: number | null;
  workers: Set<string>;
}

export class ClockOffsets {
  private readonly byHost = new Map<string, { samples: Array<{ at: number; offset: number; uncertainty: number }>; workers: Set<string> }>();
  private built: HostClock[] | null = null;

  get size(): number {
    return this.byHost.size;
  }

  add(e: Pick<ClockEvent, 'host' | 'at' | 'offset' | 'uncertainty' | 'workers'>): void {
    let h = this.byHost.get(e.host);
    if (!h) this.byHost.set(e.host, (h = { samples: [], workers: new Set() }));
    h.samples.push({ at: e.at, offset: e.offset, uncertainty: e.uncertainty });
    for (const w of e.workers) h.workers.add(w);
    this.built = null;
  }

  /** The hosts, sorted by name (so the result does not depend on line order). */
  hosts(): HostClock[] {
    if (this.built) return this.built;
    this.built = [...this.byHost.keys()].sort().map((host) => {
      const { samples, workers } = this.byHost.get(host)!;
      const sorted = [...samples].sort((a, b) => a.at - b.at || a.offset - b.offset || a.uncertainty - b.uncertainty);
      const first = sorted[0]!;
      const last = sorted.at(-1)!;
      return {
        host,
        hostAt: sorted.map((s) => s.at + s.offset),
        offset: sorted.map((s) => s.offset),
        uncertainty: Math.max(...sorted.map((s) => s.uncertainty)),
        driftPpm: last.at > first.at ? Math.round(((last.offset - first.offset) / (last.at - first.at)) * 1e6 * 10) / 10 : null,
        workers,
      };
    });
    return this.built;
  }

  /** The host (index in hosts()) each worker ran on; workers no clock event names are absent (the runner's). */
  workerHosts(): Map<string, number> {
    const out = new Map<string, number>();
    this.hosts().forEach((h, i) => {
      for (const w of h.workers) out.set(w, i);
    });
    return out;
  }
}

/** A time `hostUs` the host stamped, on the runner's clock (µs). */
export function toRunnerClock(h: HostClock, hostUs: number): number {
  const at = h.hostAt;
  const n = at.length;
  if (n === 1 || hostUs <= at[0]!) return Math.round(hostUs - h.offset[0]!);
  if (hostUs >= at[n - 1]!) return Math.round(hostUs - h.offset[n - 1]!);
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (at[mid]! <= hostUs) lo = mid;
    else hi = mid;
  }
  const span = at[hi]! - at[lo]!;
  const offset = span > 0 ? h.offset[lo]! + ((h.offset[hi]! - h.offset[lo]!) * (hostUs - at[lo]!)) / span : h.offset[lo]!;
  return Math.round(hostUs - offset);
}
