/**
 * Poison messages: what a consumer does with one (which messages are poison is decided in the
 * message plan: harness/workload/poison-picker.ts, carried in the payload's poison flag, or
 * every message of the given keys). The scenario's policy, as a pure decision per handling
 * attempt, so every concurrency mode shares one rule.
 */
import type { PoisonSpec } from '../spec/types.ts';
import type { Settlement } from '../broker/contract.ts';

export type PoisonDecision =
  /** Not poison, key not parked: run the handler and apply. */
  | { action: 'handle' }
  /** This attempt fails (outcome `error`); retry in the consumer after `retryAfterMs`, blocking. */
  | { action: 'retry'; retryAfterMs: number }
  /** This attempt fails (outcome `error`) and the message is given up: settle it so. */
  | { action: 'give-up'; settle: Extract<Settlement, 'dead-letter'> }
  /**
   * Not applied: set aside in the parking lot until the end of the run (outcome `error`,
   * recorded as not applied) and settled `ack` so the lane moves on. `parkKey` is true when
   * this message parks its key: every later message of the key is parked too.
   */
  | { action: 'park'; settle: Extract<Settlement, 'ack'>; parkKey: boolean };

export interface PoisonInput {
  /** The payload's poison flag (or a given key). */
  poison: boolean;
  key: string;
  /** 1 for the first handling attempt of this delivery in this consumer, 2 for the retry... */
  attempt: number;
  /** Keys parked so far by this consumer (park-key policy). */
  parkedKeys: ReadonlySet<string>;
}

/** Backoff before retry n+1 after attempt n: backoffMs, then doubling, at most 30 s. */
export function retryBackoffMs(backoffMs: number, attempt: number): number {
  return Math.min(backoffMs * 2 ** Math.max(0, attempt - 1), 30_000);
}

/** The usual decision, made once (one per handling attempt otherwise). */
const HANDLE: PoisonDecision = Object.freeze({ action: 'handle' as const });

export function decidePoison(spec: PoisonSpec | undefined, input: PoisonInput): PoisonDecision {
  if (spec?.policy === 'park-key' && input.parkedKeys.has(input.key)) {
    return { action: 'park', settle: 'ack', parkKey: false };
  }
  if (!spec || !input.poison) return HANDLE;
  switch (spec.policy) {
    case 'retry':
      if (input.attempt >= spec.maxAttempts) return { action: 'give-up', settle: 'dead-letter' };
      return { action: 'retry', retryAfterMs: retryBackoffMs(spec.backoffMs, input.attempt) };
    case 'dead-letter':
      return { action: 'give-up', settle: 'dead-letter' };
    case 'park-key':
      return { action: 'park', settle: 'ack', parkKey: true };
  }
}

/** Holds one consumer's parked keys and applies decisions to it. */
export class PoisonTracker {
  readonly parkedKeys = new Set<string>();
  /** Messages set aside, in arrival order: reported as not applied at the end. */
  readonly parked: { key: string; seq: number | null }[] = [];

  constructor(private readonly spec: PoisonSpec | undefined) {}

  decide(key: string, seq: number | null, poison: boolean, attempt: number): PoisonDecision {
    if (!this.spec) return HANDLE;
    const d = decidePoison(this.spec, { key, poison, attempt, parkedKeys: this.parkedKeys });
    if (d.action === 'park') {
      if (d.parkKey) this.parkedKeys.add(key);
      this.parked.push({ key, seq });
    }
    return d;
  }
}
