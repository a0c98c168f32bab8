/**
 * In-consumer concurrency, the three modes of Confluent's Parallel Consumer:
 *  - partition: one message at a time per lane; the broker client waits for each handler
 *    before it delivers the next message of that lane.
 *  - key: several keys at once, one at a time per key (messages of a busy key queue up
 *    behind each other); at most `workers` handlers run at once.
 *  - unordered: a pool of `workers`; any message may run beside any other (the thread-pool
 *    bug the seeds warn about).
 * `accept(task)` resolves when the client may hand out more work; the task itself runs
 * when its turn comes. Settlement is the task's business (the client commits only the
 * settled prefix of a lane, so out-of-order completion never commits past unfinished work).
 */
export type ConcurrencyMode = 'partition' | 'key' | 'unordered';
export const CONCURRENCY_MODES: readonly ConcurrencyMode[] = ['partition', 'key', 'unordered'];

export class Dispatcher {
  private running = 0;
  private slotWaiters: (() => void)[] = [];
  private keyTails = new Map<string, Promise<void>>();
  private idleWaiters: (() => void)[] = [];
  private pending = 0;

  constructor(readonly mode: ConcurrencyMode, readonly workers: number) {}

  /** Work accepted and not yet finished. */
  get inFlight(): number {
    return this.pending;
  }

  async accept(key: string | null, task: () => Promise<void>): Promise<void> {
    this.pending++;
    if (this.mode === 'partition') {
      // The client already serialises a lane: run inline, and only then take the next one.
      try {
        await task();
      } finally {
        this.finished();
      }
      return;
    }
    await this.takeSlotWhenFree();
    if (this.mode === 'unordered' || key === null) {
      void this.runInSlot(task);
      return;
    }
    // key mode: chain behind the key's previous task; the slot is held only while running.
    this.releaseSlot();
    const prev = this.keyTails.get(key) ?? Promise.resolve();
    const mine = prev.then(async () => {
      await this.takeSlotWhenFree();
      await this.runInSlot(task);
    });
    this.keyTails.set(key, mine);
    void mine.then(() => {
      if (this.keyTails.get(key) === mine) this.keyTails.delete(key);
    });
    // Back-pressure: do not accept unbounded work for keys that are queued up.
    if (this.pending > this.workers * 64) await this.waitBelow(this.workers * 32);
  }

  private async runInSlot(task: () => Promise<void>): Promise<void> {
    try {
      await task();
    } catch {
      /* tasks record their own failures */
    } finally {
      this.releaseSlot();
      this.finished();
    }
  }

  private takeSlotWhenFree(): Promise<void> {
    if (this.running < this.workers) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.slotWaiters.push(() => {
      this.running++;
      resolve();
    }));
  }

  private releaseSlot(): void {
    this.running--;
    const next = this.slotWaiters.shift();
    if (next) next();
  }

  private finished(): void {
    this.pending--;
    this.idleWaiters.splice(0).forEach((w) => w());
  }

  private async waitBelow(n: number): Promise<void> {
    while (this.pending > n) await new Promise<void>((r) => this.idleWaiters.push(r));
  }

  /** Resolves when no accepted work is left. */
  async idle(): Promise<void> {
    await this.waitBelow(0);
  }
}
