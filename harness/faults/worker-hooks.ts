/**
 * The faults acting inside one worker process. Every fault kind that declares a `worker` hook
 * for this role (harness/faults/contract.ts WorkerHooks) is loaded the way the runner loads
 * fault kinds; a `fault` message from the runner starts or ends it. The worker asks for the
 * active effects and never names a fault.
 */
import type { ConsumerSide, FaultKind, HandlerEffect, ProducerSide, RelayEffect, RelaySide } from './contract.ts';
import { faultKinds } from './registry.ts';
import type { ToWorker } from '../workers/protocol.ts';

type Started = { end?(): void };

export class WorkerFaults<E extends Started> {
  private readonly active = new Map<string, E>();
  private starters?: Map<string, (args: Record<string, unknown>) => E>;
  /** Messages that came before the hooks were loaded, applied once they are. */
  private early: ToWorker[] = [];
  /** Resolves when the hooks are loaded (they load beside the worker's own start-up). */
  readonly loaded: Promise<void>;

  private constructor(load: Promise<Map<string, (args: Record<string, unknown>) => E>>, log: (line: string) => void) {
    this.loaded = load.then(
      (starters) => {
        this.starters = starters;
        for (const m of this.early.splice(0)) this.receive(m);
      },
      (e: Error) => log(`fault hooks not loaded: ${e.message}`),
    );
  }

  /**
   * The hooks of a consumer process (`dir`: a folder of fault kinds other than the harness's;
   * `kinds`: only these, the ones its scenario names, for a faster start).
   */
  static consumer(side: ConsumerSide, dir?: string, kinds?: Iterable<string>): WorkerFaults<HandlerEffect> {
    const load = faultKinds(dir, kinds).then((kinds) => starters(kinds, (k) => k.worker?.consumer && ((args) => k.worker!.consumer!(args, side))));
    return new WorkerFaults(load, side.log);
  }

  static producer(side: ProducerSide, dir?: string, kinds?: Iterable<string>): WorkerFaults<Started> {
    const load = faultKinds(dir, kinds).then((kinds) => starters(kinds, (k) => k.worker?.producer && ((args) => k.worker!.producer!(args, side) ?? {})));
    return new WorkerFaults(load, side.log);
  }

  static relay(side: RelaySide, dir?: string): WorkerFaults<RelayEffect> {
    const load = faultKinds(dir).then((kinds) => starters(kinds, (k) => k.worker?.relay && ((args) => k.worker!.relay!(args, side))));
    return new WorkerFaults(load, side.log);
  }

  /** Kinds with a hook for this role (none before `loaded`). */
  get kinds(): string[] {
    return [...(this.starters?.keys() ?? [])];
  }

  /** Handles a `fault` message; false for any other message. A kind started twice restarts. */
  receive(m: ToWorker): boolean {
    if (m.type !== 'fault') return false;
    if (!this.starters) {
      this.early.push(m);
      return true;
    }
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

  /** Whether any effect is active (asked once per message: no iterator made). */
  get acting(): boolean {
    return this.active.size > 0;
  }

  /** The worker stops: every active fault ends, and none that was still to start will. */
  endAll(): void {
    this.early = [];
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
