import { throttledLog } from '../../broker/throttled-log.ts';

/**
 * Where failed settlements are told: a broker that refuses many at once (every expired session
 * lock of a stall) says so once per 5 s per kind of failure, ids aside, with a count.
 */
export function settleFailureLog(log: (line: string) => void): (line: string) => void {
  return throttledLog(log, 5_000, (l) => l.replace(/\d+/g, '#'));
}
