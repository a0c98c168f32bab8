/**
 * Maps a client process's monotonic clock (µs) to the run's clock (harness/clock.ts). Each ping
 * is bracketed by two reads of the run's clock: the client read its own clock somewhere between
 * them, so the offset lies within the bracket, and the narrowest bracket of several pings bounds
 * it best. `errorUs` is that bound (half the round trip); a ping later in the run checks that the
 * mapping still holds (the two clocks run at the same rate on one host).
 */
export interface ClockSample {
  /** Run clock before the ping was written and after the pong was read (µs). */
  sentUs: number;
  receivedUs: number;
  /** The client's clock in the pong (µs). */
  clientUs: number;
}

export class ClockMap {
  private constructor(
    /** Add to a client time to get the run's time (µs). */
    readonly offsetUs: number,
    /** How far the mapped time can be off, at most (µs). */
    readonly errorUs: number,
  ) {}

  /** From ping samples: the one with the shortest round trip. */
  static fromSamples(samples: readonly ClockSample[]): ClockMap {
    if (samples.length === 0) throw new Error('no clock samples');
    const best = samples.reduce((a, b) => (b.receivedUs - b.sentUs < a.receivedUs - a.sentUs ? b : a));
    const mid = (best.sentUs + best.receivedUs) / 2;
    return new ClockMap(mid - best.clientUs, (best.receivedUs - best.sentUs) / 2);
  }

  toRun(clientUs: number): number {
    return Math.round(clientUs + this.offsetUs);
  }

  /** Whether a later sample agrees with this mapping: its client time, mapped, lies inside its bracket (widened by both errors). */
  agrees(sample: ClockSample, slackUs = 0): boolean {
    const mapped = this.toRun(sample.clientUs);
    return mapped >= sample.sentUs - this.errorUs - slackUs && mapped <= sample.receivedUs + this.errorUs + slackUs;
  }
}
