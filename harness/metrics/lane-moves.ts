/**
 * Keys that change lane when a topic's partition count grows: for every key, the lane of its
 * last write before the change and of its first write after the producers picked up the new
 * count. Compared with what hashing predicts: with a uniform hash, a key stays put only when
 * hash mod n == hash mod m, so the expected share that moves is 1 - |{r < lcm(n,m) : r mod n ==
 * r mod m}| / lcm(n,m) (3 -> 4 and 12 -> 16 partitions: 75%).
 */
export interface LaneMoveReport {
  fault: string;
  lanesBefore: number | null;
  lanesAfter: number | null;
  keys: number;
  moved: number;
  movedShare: number | null;
  expectedShare: number | null;
  /** When each producer process began to refresh its metadata (run clock, µs). */
  producersRefreshStartedAt: number[];
  /**
   * When each said it had refreshed. A client updates its metadata before its refresh call
   * returns, so a write can already go to a new lane a little before this; never before the
   * refresh began.
   */
  producersRefreshedAt: number[];
  /** The first write acked on a lane that did not exist before. */
  firstWriteOnNewLaneAt: number | null;
}

export function expectedMovedShare(n: number, m: number): number {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const lcm = (n * m) / gcd(n, m);
  let stay = 0;
  for (let r = 0; r < lcm; r++) if (r % n === r % m) stay++;
  return 1 - stay / lcm;
}

/** Per key, the acked writes in time order: [sent µs, lane]. */
export type KeyWrites = Map<string, [number, string][]>;

export function laneMoves(
  fault: { name: string; startUs: number; evidence?: unknown },
  writes: KeyWrites,
  refreshMarks: number[],
  refreshStartMarks: number[] = [],
): LaneMoveReport {
  const ev = (fault.evidence ?? {}) as { lanesBefore?: number; lanesAfter?: number };
  const refreshed = refreshMarks.filter((t) => t >= fault.startUs).sort((a, b) => a - b);
  // After the last producer refreshed, every write uses the new count.
  const afterUs = refreshed.length ? refreshed[refreshed.length - 1] : fault.startUs;
  const oldLanes = new Set<string>();
  let keys = 0;
  let moved = 0;
  let firstNew: number | null = null;
  for (const list of writes.values()) for (const [at, lane] of list) if (at < fault.startUs) oldLanes.add(lane);
  for (const list of writes.values()) {
    list.sort((a, b) => a[0] - b[0]);
    let before: string | undefined;
    let after: string | undefined;
    for (const [at, lane] of list) {
      if (at < fault.startUs) before = lane;
      else if (at >= afterUs && after === undefined) after = lane;
      if (at >= fault.startUs && !oldLanes.has(lane) && (firstNew === null || at < firstNew)) firstNew = at;
    }
    if (before === undefined || after === undefined) continue;
    keys++;
    if (before !== after) moved++;
  }
  const n = ev.lanesBefore ?? null;
  const m = ev.lanesAfter ?? null;
  return {
    fault: fault.name,
    lanesBefore: n,
    lanesAfter: m,
    keys,
    moved,
    movedShare: keys ? moved / keys : null,
    expectedShare: n && m ? expectedMovedShare(n, m) : null,
    producersRefreshStartedAt: refreshStartMarks.filter((t) => t >= fault.startUs).sort((a, b) => a - b),
    producersRefreshedAt: refreshed,
    firstWriteOnNewLaneAt: firstNew,
  };
}
