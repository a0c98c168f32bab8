/**
 * What the consumers' handling cost, from the history's process events: the figures a consumer
 * defence is weighed by (the result's `consumers.costs`; the defences table reads them for any
 * strategy or mode). A delivery applied in a shared store transaction (batch mode) carries
 * `batch: <size>`, so its batch's one transaction is shared out over it (the batch's handlings
 * follow each other, the first carrying the handler's wait); a conflated delivery was settled
 * without reaching the store.
 */
import type { ProcessEvent } from '../history/events.ts';

export interface ConsumerCosts {
  /** Handling attempts that ended ok (conflated ones included). */
  handled: number;
  /** Of those, dropped unhandled because a newer message of their key superseded them. */
  conflated: number;
  /** Of those, handed to the consumers' strategy. */
  applied: number;
  /** Attempts that ended in an error (poison, failing handlers). */
  errors: number;
  /** Store transactions the applies took (a batch is one). */
  storeTransactions: number;
  /** applied / storeTransactions. */
  messagesPerTransaction: number;
  /** storeTransactions / handled: store writes per message. */
  transactionsPerMessage: number;
  /** Handler time (handler start to end) per handled message, ms. */
  handlerMsPerMessage: number;
  /** Handled messages per second between the first handler start and the last end. */
  perSecond: number;
}

export class ConsumerCostCounter {
  private handled = 0;
  private conflated = 0;
  private errors = 0;
  private transactions = 0;
  private handlerUs = 0;
  private first = Infinity;
  private last = -Infinity;

  add(e: ProcessEvent): void {
    if (e.outcome === 'error') {
      this.errors++;
      return;
    }
    if (e.outcome !== 'ok' || e.end === undefined) return;
    this.handled++;
    this.first = Math.min(this.first, e.start);
    this.last = Math.max(this.last, e.end);
    if (e.effect === 'conflated') {
      this.conflated++;
      return;
    }
    this.transactions += 1 / (e.batch ?? 1);
    this.handlerUs += e.end - e.start;
  }

  costs(): ConsumerCosts {
    const applied = this.handled - this.conflated;
    const transactions = Math.round(this.transactions);
    const busyS = this.last > this.first ? (this.last - this.first) / 1e6 : 0;
    const r = (n: number, d = 3) => Number(n.toFixed(d));
    return {
      handled: this.handled,
      conflated: this.conflated,
      applied,
      errors: this.errors,
      storeTransactions: transactions,
      messagesPerTransaction: transactions ? r(applied / transactions, 2) : 0,
      transactionsPerMessage: this.handled ? r(transactions / this.handled) : 0,
      handlerMsPerMessage: this.handled ? r(this.handlerUs / 1000 / this.handled) : 0,
      perSecond: busyS ? Math.round(this.handled / busyS) : 0,
    };
  }
}
