import type { ProcessEvent } from '../../history/events.ts';
import type { HistoryWriter } from '../../history/writer.ts';
import type { Effect, EntityStore } from '../../consumer/entity-store.ts';
import type { Delivered } from '../../consumer/strategies/contract.ts';
import type { ConsumerPhases } from '../../workers/phases.ts';

/**
 * The consumer worker's group commit: handled messages' store writes go into one open SQLite
 * transaction and their history records wait beside it, until `end()` commits the transaction,
 * then appends the records and flushes the file. A group ends before anything tells the broker
 * about a settlement (the client's `beforeCommit`, or the worker itself before a settlement the
 * broker hears at once), at the end of the event-loop turn it began in, and at `maxSize`
 * messages. So a settlement never reaches the broker before the effects and records it
 * covers are written (store first, then history, as with one transaction per message), and a
 * process killed mid-group loses the group's effects, its records and its uncommitted offsets
 * together. The other process's writes wait at most for one group (busy_timeout).
 */
export class GroupCommit {
  private pending: ProcessEvent[] = [];
  private open = false;
  private scheduled = false;

  constructor(
    private readonly store: EntityStore,
    private readonly history: HistoryWriter,
    private readonly phases: ConsumerPhases,
    private readonly maxSize = 1000,
  ) {}

  /** Applies one message inside the group's transaction. */
  apply(m: Delivered): Effect {
    if (!this.open) {
      this.store.begin();
      this.open = true;
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.end();
        });
      }
    }
    return this.store.applyNow(m);
  }

  /** The record of a message applied in this group; written when the group ends. */
  record(ev: ProcessEvent): void {
    this.pending.push(ev);
    if (this.pending.length >= this.maxSize) this.end();
  }

  /** Commits the store writes, then appends and flushes their records. Cheap when empty. */
  end(): void {
    if (this.open) {
      const t = performance.now();
      this.store.commit();
      this.open = false;
      this.phases.storeMs += performance.now() - t;
    }
    if (this.pending.length) {
      const t = performance.now();
      for (const ev of this.pending) this.history.write(ev);
      this.pending = [];
      this.history.flush();
      this.phases.historyMs += performance.now() - t;
    }
  }
}
