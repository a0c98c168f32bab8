import { join } from 'node:path';
import type { WorkerInit } from '../workers/protocol.ts';
import type { WorkerHandle } from '../workers/handle.ts';

/**
 * The run's consumer processes c1..cN. A consumer killed by a fault is replaced by a fresh
 * process of the same name; the killed one is kept (`retired`): its counts still count, and its
 * history file is `<id>.<generation>.jsonl`.
 */
export class ConsumerGroup {
  readonly live: WorkerHandle[] = [];
  readonly retired: WorkerHandle[] = [];
  private readonly generation = new Map<string, number>();

  constructor(
    private readonly files: { runDir: string; histDir: string },
    private readonly make: (id: string, historyFile: string) => WorkerInit,
    private readonly started: (w: WorkerHandle) => void,
    /** Starts the process, here or on an agent (placement.ts). */
    private readonly spawn: (init: WorkerInit, logFile: string) => WorkerHandle,
  ) {}

  /** Every process, live or retired. */
  all(): WorkerHandle[] {
    return [...this.live, ...this.retired];
  }

  start(id: string): WorkerHandle {
    const gen = (this.generation.get(id) ?? 0) + 1;
    this.generation.set(id, gen);
    const file = gen === 1 ? id : `${id}.${gen}`;
    const w = this.spawn(this.make(id, join(this.files.histDir, `${file}.jsonl`)), join(this.files.runDir, `${file}.log`));
    this.live.push(w);
    this.started(w);
    return w;
  }

  /** A fresh process in place of a killed one; resolves once it is ready. */
  async restart(id: string): Promise<void> {
    const idx = this.live.findIndex((c) => c.id === id);
    const old = idx >= 0 ? this.live.splice(idx, 1)[0] : undefined;
    const fresh = this.start(id);
    if (old) {
      // Back in the killed one's place, so the list keeps its order.
      this.live.splice(this.live.indexOf(fresh), 1);
      this.live.splice(idx, 0, fresh);
      this.retired.push(old);
    }
    await fresh.waitFor('ready', 60_000, 'consumer restart');
  }
}
