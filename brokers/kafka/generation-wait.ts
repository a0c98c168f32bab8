/**
 * The librdkafka consumer's group generation, which it names only in a `cgrp` debug line
 * ("JoinGroup response: GenerationId N"). librdkafka logs that line before it assigns, but the
 * line and the rebalance callback reach JavaScript by different paths: on a loaded machine the
 * assignment came first and was recorded without its generation (a fresh-machine CI run).
 *
 * So an assignment that arrives before a join line newer than the previous assignment's waits
 * for it, up to `maxWaitMs`; the consume loop holds its messages meanwhile (`settled`). A
 * revocation first settles any waiting assignment, so the two are recorded in their order.
 */
export class GenerationWait {
  generation: number | undefined;
  private joins = 0;
  private joinsAtLastAssign = 0;
  private pending: { record: (generation: number | undefined) => void; timer: NodeJS.Timeout; done: () => void } | undefined;
  /** Resolves once no assignment is waiting. */
  settled: Promise<void> = Promise.resolve();

  /** An assignment is waiting for its join line (the consume loop awaits `settled` only then). */
  get waiting(): boolean {
    return this.pending !== undefined;
  }

  constructor(private readonly maxWaitMs = 2_000) {}

  /** A debug line named a generation. */
  joined(generation: number): void {
    this.generation = generation;
    this.joins++;
    this.settle();
  }

  /** Records an assignment with its generation: now, or once the join line comes (or the wait ends). */
  assign(record: (generation: number | undefined) => void): void {
    this.settle();
    if (this.joins > this.joinsAtLastAssign) {
      this.joinsAtLastAssign = this.joins;
      record(this.generation);
      return;
    }
    let done!: () => void;
    this.settled = new Promise<void>((resolve) => (done = resolve));
    const timer = setTimeout(() => this.settle(), this.maxWaitMs);
    this.pending = { record, timer, done };
  }

  /** Records a waiting assignment now, with the generation known so far. */
  settle(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    clearTimeout(p.timer);
    this.joinsAtLastAssign = this.joins;
    p.record(this.generation);
    p.done();
  }
}
