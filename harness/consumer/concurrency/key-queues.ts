/**
 * What the hot-key defences among the modes (modes/conflate.ts, modes/batch.ts) share: key mode
 * with the key's queue in view. Each key has a FIFO of tasks that arrived while it was busy; at
 * most one turn per key runs at a time, and at most `workers` turns hold a worker at once. A
 * turn takes what it wants off the head of its key's queue (conflate: everything, running the
 * newest; batch: up to N) with `take`, and has finished them when it resolves.
 */
import type { ConcurrencySettings, Scheduler, Task } from './contract.ts';

/** A queued task and when it arrived (performance.now() ms). */
export interface Queued {
  task: Task;
  at: number;
}

export interface TurnTools {
  /** Takes a worker; the returned function gives it back. */
  slot(): Promise<() => void>;
  /** Resolves when the key's queue grows or after `ms`, whichever comes first. */
  more(ms: number): Promise<void>;
  /** Takes up to `n` tasks off the queue's head (all when absent). */
  take(n?: number): Task[];
}

/** One turn of a key: looks at `queue` (read only), takes tasks with `take` and handles them. */
export type Turn = (queue: readonly Queued[], tools: TurnTools) => Promise<void>;

/** The `queue` field the two modes share: deliveries one consumer holds unsettled. */
export const QUEUE_FIELD = {
  queue: {
    type: 'integer',
    minimum: 1,
    maximum: 100_000,
    description:
      'conflate, batch: deliveries one consumer process holds unsettled, queued per key (the window in which a newer message can supersede or join an older one). Default 500.',
  },
};
export const DEFAULT_QUEUE = 500;

export function queueSize(settings: ConcurrencySettings | undefined): number {
  return typeof settings?.queue === 'number' ? settings.queue : DEFAULT_QUEUE;
}

export class KeyQueues implements Scheduler {
  private readonly queues = new Map<string, Queued[]>();
  private readonly growth = new Map<string, () => void>();
  private free: number;
  private readonly slotWaiters: (() => void)[] = [];
  private pending = 0;
  private readonly idleWaiters: (() => void)[] = [];

  constructor(workers: number, private readonly turn: Turn) {
    this.free = Math.max(1, workers);
  }

  get inFlight(): number {
    return this.pending;
  }

  async accept(key: string | null, task: Task): Promise<void> {
    this.pending++;
    // An undecodable message has no key: it runs alone.
    const k = key ?? `\u0000undecoded-${this.pending}-${Math.random()}`;
    const queue = this.queues.get(k);
    if (queue) {
      queue.push({ task, at: performance.now() });
      this.growth.get(k)?.();
      return;
    }
    this.queues.set(k, [{ task, at: performance.now() }]);
    void this.serve(k);
  }

  async idle(): Promise<void> {
    while (this.pending > 0) await new Promise<void>((r) => this.idleWaiters.push(r));
  }

  /** Turns for `key` until its queue is empty. */
  private async serve(key: string): Promise<void> {
    const queue = this.queues.get(key)!;
    let taken = 0;
    const tools: TurnTools = {
      take: (n = queue.length) => {
        const out = queue.splice(0, Math.max(0, n)).map((q) => q.task);
        taken += out.length;
        return out;
      },
      slot: () => this.slot(),
      more: (ms) =>
        new Promise<void>((resolve) => {
          const t = setTimeout(done, Math.max(0, ms));
          function done() {
            clearTimeout(t);
            resolve();
          }
          this.growth.set(key, done);
        }),
    };
    while (queue.length > 0) {
      taken = 0;
      try {
        await this.turn(queue, tools);
      } catch {
        /* tasks record their own failures */
      }
      this.growth.delete(key);
      // A turn that took nothing (it threw first): the head runs alone, so the queue cannot spin.
      if (taken === 0) {
        try {
          await tools.take(1)[0]!();
        } catch {
          /* as above */
        }
      }
      this.finished(taken);
    }
    this.queues.delete(key);
  }

  private slot(): Promise<() => void> {
    const release = () => {
      const next = this.slotWaiters.shift();
      if (next) next();
      else this.free++;
    };
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(release);
    }
    return new Promise((resolve) => this.slotWaiters.push(() => resolve(release)));
  }

  private finished(n: number): void {
    this.pending -= n;
    if (this.pending <= 0) this.idleWaiters.splice(0).forEach((w) => w());
  }
}
