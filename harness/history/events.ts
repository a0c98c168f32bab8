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
  /** What a consumer strategy made of it: applied, or skipped as stale. */
  effect?: 'applied' | 'skipped-stale';
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
  | MarkEvent;
