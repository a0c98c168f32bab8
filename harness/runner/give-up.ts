/**
 * Giving up early, honestly: while the producers send, a run whose producers fall so far
 * behind that its verdict is already `unknown` stops sending instead of grinding on for
 * minutes. "So far behind": the publish delay (how late the last send was against the
 * open-loop schedule) above run.giveUpDelayMs for GIVE_UP_AFTER_MS in a row, or under half
 * of a fixed target rate over the last GIVE_UP_AFTER_MS, after the warm-up. Time inside a
 * fault window or its settle time does not count (a link-down or a broker kill slows
 * producers on purpose), as in the analysis's rate check.
 */

/** How long the producers must stay behind before the run gives up. */
export const GIVE_UP_AFTER_MS = 3_000;

export interface GiveUpSample {
  /** Run clock, µs. */
  atUs: number;
  /** Messages sent so far by every producer. */
  sent: number;
  /** The worst producer's publish delay, ms. */
  behindMs: number;
}

export interface GiveUpOptions {
  /** End of the warm-up, µs. */
  measureStartUs: number;
  /** Publish delay bound, ms (run.giveUpDelayMs). */
  delayBoundMs: number;
  /** A fixed target rate (messages per second, all producers), or null when there is none. */
  targetPerSecond: number | null;
  /** End of the planned sending, µs: past it the producers are finishing, not sending (no rate check). */
  planEndUs: number;
  /** True when `atUs` is inside a fault window or its settle time (planned or actual). */
  inFault(atUs: number): boolean;
}

export class GiveUpWatch {
  private behindSinceUs: number | null = null;
  /** Samples of the current stretch outside faults, for the rate over the last GIVE_UP_AFTER_MS. */
  private window: GiveUpSample[] = [];

  constructor(private readonly opts: GiveUpOptions) {}

  /** Feeds one sample; returns the reason to give up, or null. */
  sample(s: GiveUpSample): string | null {
    const o = this.opts;
    if (s.atUs < o.measureStartUs || o.inFault(s.atUs)) {
      this.behindSinceUs = null;
      this.window = [];
      return null;
    }
    const spanUs = GIVE_UP_AFTER_MS * 1000;
    if (s.behindMs > o.delayBoundMs) {
      this.behindSinceUs ??= s.atUs;
      if (s.atUs - this.behindSinceUs >= spanUs) {
        return `gave up early: publish delay ${Math.round(s.behindMs)} ms, above run.giveUpDelayMs ${o.delayBoundMs} ms for ${GIVE_UP_AFTER_MS / 1000} s; the producers cannot keep the target rate`;
      }
    } else this.behindSinceUs = null;
    this.window.push(s);
    while (this.window.length > 1 && s.atUs - this.window[1].atUs >= spanUs) this.window.shift();
    const first = this.window[0];
    if (o.targetPerSecond !== null && s.atUs <= o.planEndUs && s.atUs - first.atUs >= spanUs) {
      const rate = ((s.sent - first.sent) * 1e6) / (s.atUs - first.atUs);
      if (rate < o.targetPerSecond / 2) {
        return `gave up early: sending ${Math.round(rate)}/s over the last ${Math.round((s.atUs - first.atUs) / 1e6)} s, under half the target ${o.targetPerSecond}/s; the producers cannot keep the target rate`;
      }
    }
    return null;
  }
}
