import type { Scheduler, Task } from './contract.ts';

/**
 * What the pooled modes share: at most `workers` tasks run at once; `inFlight` counts tasks
 * accepted and not finished, and `idle()` waits for none.
 */
export class Pool implements Scheduler {
  private running = 0;
  private slotWaiters: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  private pending = 0;

  constructor(
    readonly workers: number,
    /** How a mode schedules one accepted task (it calls slot() and runInSlot() as it sees fit). */
    private readonly schedule: (pool: Pool, key: string | null, task: Task) => Promise<void> | void,
  ) {}

  get inFlight(): number {
    return this.pending;
  }

  accept(key: string | null, task: Task): Promise<void> | void {
    this.pending++;
    return this.schedule(this, key, task);
  }

  /** Runs an accepted task in a slot taken with slot(); frees both when it ends. */
  async runInSlot(task: Task): Promise<void> {
    try {
      await task();
    } catch {
      /* tasks record their own failures */
    } finally {
      this.releaseSlot();
      this.finished();
    }
  }

  /**
   * Runs an accepted task outside the slots (the caller serialises); frees it when it ends.
   * Nothing (no promise) when the task finished before it returned.
   */
  runInline(task: Task): Promise<void> | void {
    // At most one promise per task, not an async frame and an await: this runs once per message.
    let running: Promise<void> | void;
    try {
      running = task();
    } catch (err) {
      this.finished();
      return Promise.reject(err);
    }
    if (running === undefined) return this.finished();
    return running.then(
      () => this.finished(),
      (err: unknown) => {
        this.finished();
        throw err;
      },
    );
  }

  slot(): Promise<void> {
    if (this.running < this.workers) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.slotWaiters.push(() => {
      this.running++;
      resolve();
    }));
  }

  releaseSlot(): void {
    this.running--;
    const next = this.slotWaiters.shift();
    if (next) next();
  }

  private finished(): void {
    this.pending--;
    if (this.idleWaiters.length) this.idleWaiters.splice(0).forEach((w) => w());
  }

  async waitBelow(n: number): Promise<void> {
    while (this.pending > n) await new Promise<void>((r) => this.idleWaiters.push(r));
  }

  async idle(): Promise<void> {
    await this.waitBelow(0);
  }
}
