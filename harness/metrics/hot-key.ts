/**
 * The hottest key's figures (the result's `consumers.hotKey`): what it was offered, what its
 * consumers got through, and how its backlog and the age of its oldest unhandled message grew
 * while the producers sent. The arithmetic for one key: a key moves at most as fast as
 * its handler (1000 / handler ms per second), so offered more, its backlog grows by the
 * difference every second (a 20 ms handler: 50 msg/s; offered 200, +150 a second).
 */
export interface HotKeyFigures {
  key: string;
  /** Messages of the key written per second while sending. */
  offeredPerSecond: number;
  /** Messages of the key handled per second while sending (offered less backlog growth). */
  handledPerSecond: number;
  /** Least-squares slope of the backlog over the sending seconds, messages per second. */
  backlogGrowthPerSecond: number;
  backlogMax: number;
  backlogAtEndOfSending: number;
  oldestUnprocessedMsMax: number;
  oldestUnprocessedMsAtEndOfSending: number;
}

/**
 * `backlog` and `oldestMs`: per-second series of the key (keyBacklog); `written`: the key's
 * messages written in the measured phase; `sendingS`: how long the producers sent, seconds.
 * The growth is fitted over the whole seconds of sending; "at the end of sending" is the
 * second the last send fell in.
 */
export function hotKeyFigures(key: string, backlog: number[], oldestMs: number[], written: number, sendingS: number): HotKeyFigures {
  const whole = Math.max(1, Math.min(Math.floor(sendingS), backlog.length));
  const last = Math.max(0, Math.min(Math.ceil(sendingS), backlog.length) - 1);
  const slope = leastSquaresSlope(backlog.slice(0, whole));
  const offered = written / Math.max(sendingS, 1e-3);
  const r1 = (x: number) => Number(x.toFixed(1));
  return {
    key,
    offeredPerSecond: r1(offered),
    handledPerSecond: r1(Math.max(0, offered - slope)),
    backlogGrowthPerSecond: r1(slope),
    backlogMax: Math.max(0, ...backlog),
    backlogAtEndOfSending: backlog[last] ?? 0,
    oldestUnprocessedMsMax: Math.max(0, ...oldestMs),
    oldestUnprocessedMsAtEndOfSending: oldestMs[last] ?? 0,
  };
}

function leastSquaresSlope(ys: number[]): number {
  const n = ys.length;
  if (n < 2) return 0;
  const mx = (n - 1) / 2;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  ys.forEach((y, x) => {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  });
  return num / den;
}
