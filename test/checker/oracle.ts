/**
 * A brute-force oracle for the ordering checker, written straight from the definitions in
 * docs/anomalies.md and sharing no code with harness/checker. Quadratic (or worse) on purpose: every
 * anomaly is a literal search over the events. Input: valid history events as plain objects.
 *
 * Conventions it shares with the checker only through the written contract (see the header
 * of harness/checker/analysis.ts): a message is sent when it has a send or an ack; the ack
 * status rule; "lands after" compares ends strictly; occurrence times; example orders; times
 * of other hosts mapped by their clock events (interpolated, rounded to the microsecond; an
 * end never before its start), and the uncertain rule for reorder, regression and overlap.
 */

export const TYPES = [
  'lost',
  'unseen',
  'abandoned',
  'duplicate',
  'reorder',
  'regression',
  'gap',
  'overlap',
  'split',
  'phantom',
  'ghost',
  'unknown-delivered',
  'retried',
  'displaced',
] as const;
export type OracleType = (typeof TYPES)[number];

type Json = Record<string, unknown>;

interface Proc {
  key: string | null;
  producer: string | null;
  seq: number | null;
  consumer: string | null;
  lane: string | null;
  offset: number | null;
  start: number;
  end: number | null;
  outcome: 'ok' | 'error' | null;
  /** The host whose clock stamped it (null: the runner's). */
  host: string | null;
}

/** What identifies an offending item in examples. */
export type Identity = Record<string, unknown>;

export interface OracleItem {
  key: string | null;
  time: number;
  /** The item as the checker's examples identify it. */
  identity: Identity;
  /** Sort key for example choice. */
  order: (string | number | null)[];
  /** Sort direction for nulls per position: 'first' or 'last'. */
  nulls: ('first' | 'last')[];
}

export interface OracleResult {
  items: Record<OracleType, OracleItem[]>;
  /** Anomalies that hang on an order of two hosts' times closer than their clocks are known. */
  uncertain: Record<OracleType, OracleItem[]>;
}

/** A host's clock from its clock events: the runner's time of a time it stamped, and its uncertainty. */
function hostClocks(events: Json[]) {
  const clocks = events.filter((e) => e.type === 'clock');
  const hostOf = new Map<string, string>();
  for (const c of clocks) for (const w of c.workers as string[]) hostOf.set(w, c.host as string);
  const samples = (host: string) => clocks.filter((c) => c.host === host).sort((a, b) => (a.at as number) - (b.at as number));
  const uncertainty = (host: string | null) => (host === null ? 0 : Math.max(...samples(host).map((c) => c.uncertainty as number)));
  const toRunner = (host: string | null, t: number): number => {
    if (host === null) return t;
    const pts = samples(host).map((c) => ({ x: (c.at as number) + (c.offset as number), offset: c.offset as number }));
    if (t <= pts[0].x) return Math.round(t - pts[0].offset);
    const last = pts[pts.length - 1];
    if (t >= last.x) return Math.round(t - last.offset);
    let i = 0;
    while (!(pts[i].x <= t && t < pts[i + 1].x)) i++;
    const a = pts[i];
    const b = pts[i + 1];
    return Math.round(t - (a.offset + ((b.offset - a.offset) * (t - a.x)) / (b.x - a.x)));
  };
  return { hostOf, uncertainty, toRunner };
}

export function oracle(events: Json[], options: { correctClocks?: boolean } = {}): OracleResult {
  const clocks = hostClocks(options.correctClocks === false ? [] : events);
  // Two times of one host share its clock's error; of two hosts, each adds its own.
  const pairUncertainty = (a: Proc, b: Proc) => (a.host === b.host ? 0 : clocks.uncertainty(a.host) + clocks.uncertainty(b.host));
  const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
  const sends = events.filter((e) => e.type === 'send');
  const acks = events.filter((e) => e.type === 'ack');
  // The latest `remaining` event; at one instant, the one holding most (unknown holds most);
  // several such: the lanes every one of them reports, each with its largest count.
  const held = (e: Json) => (e.known === true && typeof e.total === 'number' ? e.total : Infinity);
  const latest = events
    .filter((e) => e.type === 'remaining')
    .sort((a, b) => (b.at as number) - (a.at as number) || held(b) - held(a));
  const tied = latest.filter((e) => latest.length > 0 && e.at === latest[0].at && held(e) === held(latest[0]));
  const remaining = latest[0];
  const laneCounts = (e: Json) => (e.lanes && typeof e.lanes === 'object' ? (e.lanes as Record<string, number>) : null);
  const reportedLanes = tied.some((e) => laneCounts(e) === null)
    ? null
    : new Map(
        Object.keys(laneCounts(tied[0] ?? {}) ?? {})
          .filter((l) => tied.every((e) => Object.hasOwn(laneCounts(e)!, l)))
          .map((l) => [l, Math.max(...tied.map((e) => laneCounts(e)![l]))]),
      );
  // An ack's lane as text (a number as its decimal text).
  const ackLane = (e: Json) => (typeof e.lane === 'string' ? e.lane : typeof e.lane === 'number' && Number.isFinite(e.lane) ? String(e.lane) : null);
  // What the broker held off its reported lanes (retry, dead-letter queues): any lane's.
  const onLanes = reportedLanes === null ? 0 : [...reportedLanes.values()].reduce((a, b) => a + b, 0);
  const offLanes = remaining?.known === true ? (remaining.total as number) - onLanes : 0;
  /**
   * An acked, undelivered message: lost with no remaining event; unseen when not known; else
   * by the one lane all its acks name, if reported (empty counts only with nothing held off
   * the lanes); else by the total.
   */
  const undelivered = (acksOf: Json[]): 'lost' | 'unseen' => {
    if (remaining === undefined) return 'lost';
    if (remaining.known !== true) return 'unseen';
    const lanes = acksOf.map(ackLane);
    const one = lanes.length > 0 && lanes.every((l) => l !== null && l === lanes[0]) ? lanes[0] : null;
    if (one !== null && reportedLanes !== null && reportedLanes.has(one)) return reportedLanes.get(one) === 0 && offLanes <= 0 ? 'lost' : 'unseen';
    return remaining.total === 0 ? 'lost' : 'unseen';
  };
  const procs: Proc[] = events
    .filter((e) => e.type === 'process')
    .map((e): Proc => ({
      key: typeof e.key === 'string' ? e.key : null,
      producer: typeof e.producer === 'string' ? e.producer : null,
      seq: typeof e.seq === 'number' ? e.seq : null,
      consumer: typeof e.consumer === 'string' ? e.consumer : null,
      lane: str(e.lane),
      offset: typeof e.offset === 'number' ? e.offset : typeof e.offset === 'string' ? Number(e.offset) : null,
      start: e.start as number,
      end: typeof e.end === 'number' ? e.end : null,
      outcome: e.outcome === 'ok' ? 'ok' : e.outcome === 'error' ? 'error' : null,
      host: typeof e.consumer === 'string' ? (clocks.hostOf.get(e.consumer) ?? null) : null,
    }))
    .map((pe): Proc => {
      const start = clocks.toRunner(pe.host, pe.start);
      return { ...pe, start, end: pe.end === null ? null : Math.max(start, clocks.toRunner(pe.host, pe.end)) };
    });

  const same = (e: Json, p: unknown, k: unknown, s: unknown) => e.producer === p && e.key === k && e.seq === s;
  const sent = (p: unknown, k: unknown, s: unknown) => sends.some((e) => same(e, p, k, s)) || acks.some((e) => same(e, p, k, s));
  const status = (p: unknown, k: unknown, s: unknown): 'ok' | 'failed' | 'unknown' => {
    const a = acks.filter((e) => same(e, p, k, s));
    const n = sends.filter((e) => same(e, p, k, s)).length;
    if (a.some((e) => e.ok === true)) return 'ok';
    if (a.length === 0 || a.some((e) => e.ok === null || e.ok === undefined) || a.length < n) return 'unknown';
    return 'failed';
  };
  const phantom = (pe: Proc) => pe.key === null || pe.seq === null || pe.producer === null || !sent(pe.producer, pe.key, pe.seq);
  const real = procs.filter((pe) => !phantom(pe));
  const isApply = (pe: Proc) => pe.outcome === 'ok' && pe.end !== null;
  const ofMessage = (p: unknown, k: unknown, s: unknown) => real.filter((pe) => pe.producer === p && pe.key === k && pe.seq === s);
  const appliesOf = (p: unknown, k: unknown, s: unknown) => ofMessage(p, k, s).filter(isApply);

  // Apply order: end, start, consumer, lane, offset (missing first).
  const cmpNullFirst = (a: string | number | null, b: string | number | null) =>
    a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : a > b ? 1 : 0;
  const applyCmp = (a: Proc, b: Proc) =>
    (a.end as number) - (b.end as number) ||
    a.start - b.start ||
    cmpNullFirst(a.consumer, b.consumer) ||
    cmpNullFirst(a.lane, b.lane) ||
    cmpNullFirst(a.offset, b.offset);
  const firstApply = (p: unknown, k: unknown, s: unknown): Proc | null => {
    let best: Proc | null = null;
    for (const a of appliesOf(p, k, s)) if (best === null || applyCmp(a, best) < 0) best = a;
    return best;
  };

  // All distinct sent messages and streams.
  const messages: { producer: string; key: string; seq: number }[] = [];
  for (const e of [...sends, ...acks]) {
    if (!messages.some((m) => same(e, m.producer, m.key, m.seq))) messages.push({ producer: e.producer as string, key: e.key as string, seq: e.seq as number });
  }

  const items = Object.fromEntries(TYPES.map((t) => [t, [] as OracleItem[]])) as Record<OracleType, OracleItem[]>;
  const uncertain = Object.fromEntries(TYPES.map((t) => [t, [] as OracleItem[]])) as Record<OracleType, OracleItem[]>;
  const eventItem = (pe: Proc, time: number): OracleItem => ({
    key: pe.key,
    time,
    identity: {
      key: pe.key,
      producer: pe.producer,
      seq: pe.seq,
      consumer: pe.consumer,
      lane: pe.lane,
      offset: pe.offset,
      start: pe.start,
      end: pe.end,
      outcome: pe.outcome,
    },
    order: [pe.start, pe.end, pe.consumer, pe.lane, pe.offset, pe.producer, pe.key, pe.seq, pe.outcome === null ? 0 : pe.outcome === 'ok' ? 1 : 2],
    nulls: ['first', 'last', 'first', 'first', 'first', 'first', 'first', 'first', 'first'],
  });
  const messageItem = (m: { producer: string; key: string; seq: number }, time: number): OracleItem => ({
    key: m.key,
    time,
    identity: { key: m.key, producer: m.producer, seq: m.seq },
    order: [m.producer, m.key, m.seq],
    nulls: ['first', 'first', 'first'],
  });
  const timeOf = (pe: Proc) => (pe.end !== null ? pe.end : pe.start);

  for (const m of messages) {
    const evs = ofMessage(m.producer, m.key, m.seq);
    const st = status(m.producer, m.key, m.seq);
    const first = firstApply(m.producer, m.key, m.seq);
    // lost: acked true, never delivered, and the broker (its latest `remaining` event) held
    // nothing more on its lane (or at all); unseen: it still held some, or could not be asked.
    if (st === 'ok' && evs.length === 0) {
      const sendTimes = sends.filter((e) => same(e, m.producer, m.key, m.seq)).map((e) => e.at as number);
      const acksOf = acks.filter((e) => same(e, m.producer, m.key, m.seq));
      const ackTimes = acksOf.map((e) => e.at as number);
      items[undelivered(acksOf)].push(messageItem(m, sendTimes.length ? Math.min(...sendTimes) : Math.min(...ackTimes)));
    }
    // abandoned: process events, no apply.
    if (evs.length > 0 && first === null) items.abandoned.push(messageItem(m, Math.max(...evs.map(timeOf))));
    for (const pe of evs) {
      if (pe.outcome === 'error') items.retried.push(eventItem(pe, timeOf(pe)));
      if (!isApply(pe)) continue;
      if (pe !== first) items.duplicate.push(eventItem(pe, pe.end as number));
      if (st === 'failed') items.ghost.push(eventItem(pe, pe.end as number));
      if (st === 'unknown') items['unknown-delivered'].push(eventItem(pe, pe.end as number));
    }
    const higher = messages.filter((o) => o.producer === m.producer && o.key === m.key && o.seq > m.seq);
    // reorder: my first apply lands strictly after the first apply of a higher seq; certain
    // when after one by more than the two hosts' uncertainty, else uncertain.
    const higherFirsts = higher.map((o) => firstApply(o.producer, o.key, o.seq)).filter((f): f is Proc => f !== null);
    const landedAfter = (a: Proc, type: 'reorder' | 'regression') => {
      const before = higherFirsts.filter((f) => (f.end as number) < (a.end as number));
      if (before.length === 0) return;
      const certain = before.some((f) => (a.end as number) - (f.end as number) > pairUncertainty(a, f));
      (certain ? items : uncertain)[type].push(eventItem(a, a.end as number));
    };
    if (first !== null) landedAfter(first, 'reorder');
    // regression: a repeated apply lands after any apply of a higher seq (the earliest of a
    // message's applies is its first).
    for (const a of appliesOf(m.producer, m.key, m.seq)) if (a !== first) landedAfter(a, 'regression');
    // gap: first apply of s > 1, s-1 never applied and not definitely failed.
    if (first !== null && m.seq > 1) {
      const p = m.seq - 1;
      const covered = sent(m.producer, m.key, p) && (appliesOf(m.producer, m.key, p).length > 0 || status(m.producer, m.key, p) === 'failed');
      if (!covered) items.gap.push(eventItem(first, first.end as number));
    }
  }

  for (const pe of procs) if (phantom(pe)) items.phantom.push(eventItem(pe, timeOf(pe)));

  // overlap: starts while another event of the key runs.
  // Certain when the two ran together, from this start to the earlier end, longer than the
  // two hosts' uncertainty (or on one clock, or clocks known exactly); else uncertain.
  for (const p of real) {
    const hits = real.filter((q) => q !== p && q.key === p.key && q.end !== null && q.start <= p.start && p.start < q.end);
    if (hits.length === 0) continue;
    const certain = hits.some((q) => pairUncertainty(p, q) === 0 || Math.min(q.end as number, p.end ?? Infinity) - p.start > pairUncertainty(p, q));
    (certain ? items : uncertain).overlap.push(eventItem(p, p.start));
  }

  // split: applies of a key from more than one lane.
  const keys = [...new Set(real.map((pe) => pe.key as string))];
  for (const k of keys) {
    const laned = real.filter((pe) => pe.key === k && isApply(pe) && pe.lane !== null).sort(applyCmp);
    if (new Set(laned.map((pe) => pe.lane)).size < 2) continue;
    const second = laned.find((pe) => pe.lane !== laned[0].lane) as Proc;
    items.split.push({ key: k, time: second.end as number, identity: { key: k }, order: [k], nulls: ['first'] });
  }

  // displaced: first applies minus the longest strictly increasing run of seqs in landing
  // order; the run reported is the one taking the earliest-landing applies.
  const streams = [...new Set(messages.map((m) => JSON.stringify([m.producer, m.key])))];
  for (const sj of streams) {
    const [producer, key] = JSON.parse(sj) as [string, string];
    const firsts = messages
      .filter((m) => m.producer === producer && m.key === key)
      .map((m) => ({ m, f: firstApply(m.producer, m.key, m.seq) }))
      .filter((x) => x.f !== null)
      .sort((a, b) => (a.f!.end as number) - (b.f!.end as number) || a.m.seq - b.m.seq);
    const n = firsts.length;
    // from[i]: the longest increasing run starting at i.
    const from = new Array<number>(n).fill(1);
    for (let i = n - 1; i >= 0; i--) for (let j = i + 1; j < n; j++) if (firsts[j].m.seq > firsts[i].m.seq) from[i] = Math.max(from[i], from[j] + 1);
    const best = Math.max(0, ...from);
    const taken = new Set<number>();
    let need = best;
    let last = -Infinity;
    for (let i = 0; i < n; i++) {
      if (need > 0 && from[i] === need && firsts[i].m.seq > last) {
        taken.add(i);
        need--;
        last = firsts[i].m.seq;
      }
    }
    for (let i = 0; i < n; i++) if (!taken.has(i)) items.displaced.push(eventItem(firsts[i].f!, firsts[i].f!.end as number));
  }

  return { items, uncertain };
}

/** Sorts items into example order. */
export function exampleOrder(items: OracleItem[]): OracleItem[] {
  return [...items].sort((a, b) => {
    for (let i = 0; i < a.order.length; i++) {
      const x = a.order[i];
      const y = b.order[i];
      if (x === y) continue;
      if (x === null) return a.nulls[i] === 'first' ? -1 : 1;
      if (y === null) return a.nulls[i] === 'first' ? 1 : -1;
      return x < y ? -1 : 1;
    }
    return 0;
  });
}

/** count and distinct non-null keys of a type's items. */
export function tally(items: OracleItem[]): { count: number; keys: number } {
  return { count: items.length, keys: new Set(items.filter((i) => i.key !== null).map((i) => i.key)).size };
}
