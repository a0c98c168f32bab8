/**
 * The history format: JSON Lines, one event per line, times in integer microseconds on the
 * run's clock (harness/clock.ts). The checker (issue 3) defines what each field means; this
 * file only gives the shapes writers use. Readers must accept and ignore unknown fields/types.
 */
export interface SendEvent {
  type: 'send';
  key: string;
  producer: string;
  seq: number;
  at: number;
  /** Intended send time under the open-loop schedule (publish delay = at - intended). */
  intended?: number;
  /** The producer process that sent it (several processes may write for one logical producer). */
  process?: string;
  size?: number;
}

export interface AckEvent {
  type: 'ack';
  key: string;
  producer: string;
  seq: number;
  at: number;
  /** true written, false definitely not written, null unknown (a timeout). */
  ok: boolean | null;
  lane?: string;
  offset?: number;
  error?: string;
  /** When the send was made (publish latency = at - sent). */
  sent?: number;
}

export interface ProcessEvent {
  type: 'process';
  key: string | null;
  producer: string | null;
  seq: number | null;
  consumer: string;
  lane?: string;
  offset?: number;
  received: number;
  start: number;
  /** Absent when the attempt never completed (the consumer died). */
  end?: number;
  outcome?: 'ok' | 'error';
  /** What the consumers' strategy made of it: applied, skipped (stale or duplicate), rejected
   * (a gap); skipped-stale in histories from before strategies were plug-ins. */
  effect?: 'applied' | 'skipped' | 'rejected' | 'skipped-stale';
  deliveryCount?: number;
  intended?: number;
}

export interface FaultEvent {
  type: 'fault';
  name: string;
  kind: string;
  phase: 'start' | 'end';
  at: number;
  /** Evidence from the broker, proxy or OS side that the fault really happened or was undone. */
  evidence?: unknown;
}

export interface RebalanceEvent {
  type: 'rebalance';
  at: number;
  consumer: string;
  lanes?: string[];
  generation?: number;
  phase?: 'assigned' | 'revoked';
}

export interface CommitEvent {
  type: 'commit';
  at: number;
  consumer: string;
  lane: string;
  offset: number;
}

/**
 * What the broker still held for the run's destinations once the workers had stopped and
 * committed (BrokerAdmin.remaining), written once by the runner before the destinations are
 * deleted. The checker reads it to tell `lost` (the broker holds nothing more) from `unseen`
 * (it still holds messages, or could not be asked). A history without it reads as before.
 */
export interface RemainingEvent {
  type: 'remaining';
  at: number;
  /** false: the broker could not be asked (or cannot tell); every undelivered message is then unseen. */
  known: boolean;
  /** Messages still held for the run (queued, locked, unacked, consumer-group lag); null when unknown. */
  total: number | null;
  /**
   * The same per lane (partition, queue), where the broker can tell lanes apart, named as acks
   * name them: an acked, undelivered message whose acks all name one lane listed here is unseen
   * when that lane holds more than 0, and lost when it holds 0 and `total` is no more than the
   * lanes' sum (nothing held off them, as in a dead-letter queue); others go by `total`.
   */
  lanes?: Record<string, number>;
  /** Broker-side figures behind the total (ready, unacked, lag, ...), for the report. */
  detail?: unknown;
  /** Why it is not known. */
  reason?: string;
}

/** Harness-side markers (phase changes, producer metadata refresh...). */
export interface MarkEvent {
  type: 'mark';
  at: number;
  name: string;
  detail?: unknown;
}

export type HistoryEvent =
  | SendEvent
  | AckEvent
  | ProcessEvent
  | FaultEvent
  | RebalanceEvent
  | CommitEvent
  | MarkEvent
  | RemainingEvent;
