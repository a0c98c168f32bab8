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

/**
 * What the figures need of the clocks: each event's times on the runner's clock, and how far a
 * latency between two hosts can be off. A consumer's times go by its host; a producer's send
 * by the host of its process; the times a process event carries from its producer (the
 * intended send time) and the acks (which name no process) by the producers' host when they
 * all ran on one, else as stamped (`producersSplit`).
 */
export class EventClocks {
  private readonly hosts: HostClock[];
  private readonly hostOf: Map<string, number>;
  /** The producers' one host (index, -1: the runner's), or null when they ran on several. */
  private readonly producerHost: number | null;

  constructor(offsets: ClockOffsets, producerWorkers: readonly string[]) {
    this.hosts = offsets.hosts();
    this.hostOf = offsets.workerHosts();
    const hosts = new Set(producerWorkers.map((w) => this.hostOf.get(w) ?? -1));
    this.producerHost = hosts.size === 1 ? [...hosts][0]! : hosts.size === 0 ? -1 : null;
  }

  get producersSplit(): boolean {
    return this.producerHost === null;
  }

  private map(host: number | null | undefined, t: number): number {
    return host === undefined || host === null || host < 0 ? t : toRunnerClock(this.hosts[host]!, t);
  }

  private uncertaintyOf(host: number | null | undefined): number {
    return host === undefined || host === null || host < 0 ? 0 : this.hosts[host]!.uncertainty;
  }

  /**
   * How far an end-to-end latency (a consumer's start minus its producer's intended time) can
   * be off, at most over the hosts that ran consumers and producers (µs; 0 on one host).
   */
  endToEndUncertainty(consumerWorkers: readonly string[]): number {
    const consumerHosts = new Set(consumerWorkers.map((w) => this.hostOf.get(w) ?? -1));
    const producerHosts = this.producerHost === null ? this.hosts.map((_, i) => i).concat(-1) : [this.producerHost];
    let worst = 0;
    for (const c of consumerHosts) for (const p of producerHosts) if (c !== p) worst = Math.max(worst, this.uncertaintyOf(c) + this.uncertaintyOf(p));
    return worst;
  }

  /** The event with its times on the runner's clock (the same object when nothing moves). */
  event<E extends { type: string }>(e: E): E {
    const x = e as unknown as Record<string, unknown>;
    if (e.type === 'process') {
      const c = typeof x.consumer === 'string' ? this.hostOf.get(x.consumer) : undefined;
      const p = this.producerHost;
      if (c === undefined && (p === null || p < 0)) return e;
      const out: Record<string, unknown> = { ...x };
      for (const f of ['received', 'start', 'end', 'held']) if (typeof x[f] === 'number') out[f] = this.map(c, x[f] as number);
      if (typeof x.intended === 'number') out.intended = this.map(p, x.intended);
      return out as unknown as E;
    }
    if (e.type === 'send' || e.type === 'ack') {
      const h = e.type === 'send' && typeof x.process === 'string' ? (this.hostOf.get(x.process) ?? -1) : this.producerHost;
      if (h === null || h < 0) return e;
      const out: Record<string, unknown> = { ...x };
      for (const f of ['at', 'intended', 'sent']) if (typeof x[f] === 'number') out[f] = this.map(h, x[f] as number);
      return out as unknown as E;
    }
    return e;
  }
}
