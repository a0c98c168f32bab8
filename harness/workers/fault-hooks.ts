/**
 * The faults acting inside one worker process. Every fault kind that declares a `worker` hook
 * for this role (harness/faults/contract.ts WorkerHooks) is loaded the way the runner loads
 * fault kinds; a `fault` message from the runner starts or ends it. The worker asks for the
 * active effects and never names a fault.
 */
import type { ConsumerSide, FaultKind, HandlerEffect, ProducerSide } from '../faults/contract.ts';
import { faultKinds } from '../faults/registry.ts';
import type { ToWorker } from './protocol.ts';

type Started = { end?(): void };

export class WorkerFaults<E extends Started> {
  private readonly active = new Map<string, E>();

  private constructor(private readonly starters: Map<string, (args: Record<string, unknown>) => E>) {}

  /** The hooks of a consumer process (`dir`: a folder of fault kinds other than the harness's). */
  static async consumer(side: ConsumerSide, dir?: string): Promise<WorkerFaults<HandlerEffect>> {
    return new WorkerFaults(starters(await faultKinds(dir), (k) => k.worker?.consumer && ((args) => k.worker!.consumer!(args, side))));
  }

  static async producer(side: ProducerSide, dir?: string): Promise<WorkerFaults<Started>> {
    return new WorkerFaults(starters(await faultKinds(dir), (k) => k.worker?.producer && ((args) => k.worker!.producer!(args, side) ?? {})));
  }

  /** Kinds with a hook for this role. */
  get kinds(): string[] {
    return [...this.starters.keys()];
  }

  /** Handles a `fault` message; false for any other message. A kind started twice restarts. */
  receive(m: ToWorker): boolean {
    if (m.type !== 'fault') return false;
    if (m.phase === 'end' || this.active.has(m.kind)) {
      this.active.get(m.kind)?.end?.();
      this.active.delete(m.kind);
    }
    if (m.phase === 'start') {
      const start = this.starters.get(m.kind);
      if (start) this.active.set(m.kind, start(m.args ?? {}));
    }
    return true;
  }

  /** The effects now active, in start order. */
  effects(): IterableIterator<E> {
    return this.active.values();
  }

  /** The worker stops: every active fault ends. */
  endAll(): void {
    for (const e of this.active.values()) e.end?.();
    this.active.clear();
  }
}

function starters<E>(kinds: Map<string, FaultKind>, pick: (k: FaultKind) => ((args: Record<string, unknown>) => E) | undefined): Map<string, (args: Record<string, unknown>) => E> {
  const out = new Map<string, (args: Record<string, unknown>) => E>();
  for (const [name, k] of kinds) {
    const start = pick(k);
    if (start) out.set(name, start);
  }
  return out;
}
