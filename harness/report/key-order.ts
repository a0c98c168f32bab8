/**
 * The per-key order plot's points: every process event of one key, tagged with what the
 * checker's definitions (docs/anomalies.md) make of it, so the page can highlight reorders, gaps,
 * duplicates, regressions and overlaps where they landed. Applies are ordered by `end`, ties
 * by (start, consumer, lane, offset), per (producer, key) stream; overlaps are per key.
 */

export type PointTag = 'reorder' | 'regression' | 'duplicate' | 'gap' | 'overlap' | 'error' | 'incomplete';

/** Most telling first: a point is coloured by its first tag. */
export const POINT_TAGS: readonly PointTag[] = ['reorder', 'regression', 'gap', 'duplicate', 'overlap', 'error', 'incomplete'];

export interface KeyProcessEvent {
  producer: string | null;
  seq: number;
  consumer: string;
  lane: string | null;
  offset: number | null;
  start: number;
  end: number | null;
  outcome: 'ok' | 'error' | null;
}

export interface OrderPoint extends KeyProcessEvent {
  /** When it shows on the plot: the end (the effect lands), else the start. */
  at: number;
  tags: PointTag[];
}

function cmp(a: KeyProcessEvent, b: KeyProcessEvent): number {
  return (
    (a.end ?? a.start) - (b.end ?? b.start) ||
    a.start - b.start ||
    (a.consumer < b.consumer ? -1 : a.consumer > b.consumer ? 1 : 0) ||
    ((a.lane ?? '') < (b.lane ?? '') ? -1 : (a.lane ?? '') > (b.lane ?? '') ? 1 : 0) ||
    (a.offset ?? -1) - (b.offset ?? -1)
  );
}

/**
 * Tags one key's process events. `failed` holds `${producer}\u0000${seq}` of messages whose
 * send definitely failed (no gap is counted for them).
 */
export function tagKeyEvents(events: readonly KeyProcessEvent[], failed: ReadonlySet<string> = new Set()): OrderPoint[] {
  const points: OrderPoint[] = events.map((e) => ({ ...e, at: e.end ?? e.start, tags: [] }));
  const streams = new Map<string, OrderPoint[]>();
  for (const p of points) {
    if (p.end === null) p.tags.push('incomplete');
    else if (p.outcome === 'error') p.tags.push('error');
    if (p.outcome !== 'ok' || p.end === null) continue;
    const k = p.producer ?? '';
    let s = streams.get(k);
    if (!s) streams.set(k, (s = []));
    s.push(p);
  }
  for (const [producer, applies] of streams) {
    applies.sort(cmp);
    const applied = new Set(applies.map((a) => a.seq));
    const seen = new Set<number>();
    let maxFirstBefore = -Infinity; // over first applies landing strictly earlier
    let maxAnyBefore = -Infinity; // over all applies landing strictly earlier
    let i = 0;
    while (i < applies.length) {
      // A group of applies with the same end: "strictly earlier" excludes each other.
      let j = i;
      while (j < applies.length && applies[j].end === applies[i].end) j++;
      let groupFirstMax = -Infinity;
      let groupAnyMax = -Infinity;
      for (let x = i; x < j; x++) {
        const a = applies[x];
        if (!seen.has(a.seq)) {
          seen.add(a.seq);
          if (maxFirstBefore > a.seq) a.tags.push('reorder');
          if (a.seq > 1 && !applied.has(a.seq - 1) && !failed.has(`${producer}\u0000${a.seq - 1}`)) a.tags.push('gap');
          groupFirstMax = Math.max(groupFirstMax, a.seq);
        } else {
          if (maxAnyBefore > a.seq) a.tags.push('regression');
          a.tags.push('duplicate');
        }
        groupAnyMax = Math.max(groupAnyMax, a.seq);
      }
      maxFirstBefore = Math.max(maxFirstBefore, groupFirstMax);
      maxAnyBefore = Math.max(maxAnyBefore, groupAnyMax);
      i = j;
    }
  }
  tagOverlaps(points);
  for (const p of points) p.tags.sort((a, b) => POINT_TAGS.indexOf(a) - POINT_TAGS.indexOf(b));
  return points.sort(cmp);
}

/**
 * `overlap`: an event (any outcome, any producer) that starts while another event of the key
 * is running: other.start <= start < other.end. An event without an end is never running.
 */
function tagOverlaps(points: OrderPoint[]): void {
  const byStart = [...points].sort((a, b) => a.start - b.start);
  let maxEndBefore = -Infinity; // over events starting strictly earlier
  let i = 0;
  while (i < byStart.length) {
    let j = i;
    while (j < byStart.length && byStart[j].start === byStart[i].start) j++;
    // Within a group of equal starts the others count too: keep the two largest ends.
    let top1 = -Infinity;
    let top2 = -Infinity;
    for (let x = i; x < j; x++) {
      const end = byStart[x].end ?? -Infinity;
      if (end > top1) [top1, top2] = [end, top1];
      else if (end > top2) top2 = end;
    }
    for (let x = i; x < j; x++) {
      const e = byStart[x];
      const own = e.end ?? -Infinity;
      const otherInGroup = own === top1 ? top2 : top1;
      if (Math.max(maxEndBefore, otherInGroup) > e.start) e.tags.push('overlap');
    }
    maxEndBefore = Math.max(maxEndBefore, top1);
    i = j;
  }
}
