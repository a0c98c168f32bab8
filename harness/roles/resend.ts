/**
 * A producer's own re-sends (`workload.producers[].resend`). Code that calls send()
 * again after later messages for the key went out has reordered them; this is that code: when a send's ack has not come within `ackTimeoutMs`, or the send ended with an
 * unknown outcome (`onUnknown`), the message is sent again: the same (key, producer, seq) and
 * payload, recorded as a send with `resend: n`. The first send is not cancelled: its ack is
 * recorded as it comes (a write that succeeded late is still a write). By then the open-loop
 * schedule has sent the key's later messages, so the copy lands behind them.
 */
import type { ResendSpec } from '../spec/types.ts';

export interface SendWatch {
  /** The send was answered: ok, definitely refused, or unknown (which may trigger a re-send). */
  answered(outcome: 'ok' | 'refused' | 'unknown'): void;
}

export class ResendPolicy {
  private stopped = false;

  constructor(private readonly spec: ResendSpec | undefined) {}

  /** Whether any send may be sent again (the producer makes no re-send closures otherwise). */
  get active(): boolean {
    return this.spec !== undefined && this.spec.max > 0;
  }

  /** No more re-sends (the producer is stopping); armed timers fire into nothing. */
  stop(): void {
    this.stopped = true;
  }

  /**
   * Watches the send that is the `attempt`-th re-send of a message (0: its first send) and calls
   * `resend` at most once, when it times out or ends unknown and the message has re-sends left.
   */
  watch(attempt: number, resend: () => void): SendWatch | undefined {
    const spec = this.spec;
    if (!spec || attempt >= spec.max) return undefined;
    let done = false;
    const fire = () => {
      if (done) return;
      done = true;
      if (!this.stopped) resend();
    };
    const timer = spec.ackTimeoutMs === undefined ? undefined : setTimeout(fire, spec.ackTimeoutMs);
    return {
      answered(outcome) {
        if (timer) clearTimeout(timer);
        if (outcome === 'unknown' && spec.onUnknown) fire();
        else done = true;
      },
    };
  }
}
