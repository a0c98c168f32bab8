/**
 * The own-resend scenarios' shared pieces for the real-broker tests (brokers/kafka/test/own-resend.test.ts,
 * brokers/pubsub/test/own-resend.test.ts): run a nightly scenario on the broker the test suite holds, and read its
 * history's re-sends with what had gone out of their key before them.
 */

export { runNightly } from './nightly.ts';

export interface Resend {
  key: string;
  seq: number;
  at: number;
  /** The ack of the re-send (ok true, false or null), or undefined when none came. */
  ok: boolean | null | undefined;
  error?: string;
  /** The ack of the message's first send. */
  firstOk: boolean | null | undefined;
  /** Later messages of its key (higher seq, same producer) whose first send went before the re-send. */
  laterSentBefore: number;
}

/** Every re-send in a history, with its answer and the later messages of its key already out. */
export function resends(history: Record<string, any>[]): Resend[] {
  const sends = history.filter((e) => e.type === 'send');
  const ackOf = (key: string, seq: number, sent: number) => history.find((e) => e.type === 'ack' && e.key === key && e.seq === seq && e.sent === sent);
  const firstSends = new Map(sends.filter((e) => e.resend === undefined).map((e) => [`${e.producer}\u0000${e.key}\u0000${e.seq}`, e]));
  return sends
    .filter((e) => e.resend !== undefined)
    .map((e) => {
      const first = firstSends.get(`${e.producer}\u0000${e.key}\u0000${e.seq}`);
      const ack = ackOf(e.key, e.seq, e.at);
      return {
        key: e.key,
        seq: e.seq,
        at: e.at,
        ok: ack?.ok,
        error: ack?.error,
        firstOk: first ? ackOf(e.key, e.seq, first.at)?.ok : undefined,
        laterSentBefore: sends.filter((l) => l.resend === undefined && l.producer === e.producer && l.key === e.key && l.seq > e.seq && l.at < e.at).length,
      };
    });
}
