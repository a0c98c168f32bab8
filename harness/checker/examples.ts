/**
 * Turns the final pass's chosen examples into self-explaining records: who (key, producer,
 * seq), which events with their times, and a one-line note.
 */
import { ST_FAILED, ST_OK, ST_UNSENT, T, eventTime, type FinalPass } from './analysis.ts';
import { OUT_ERROR, OUT_OK } from './history-columns.ts';
import { ANOMALY_TYPES, type Anomalies, type AckStatus, type EventRef, type Example, type UncertainEntry } from './types.ts';

const LANES_SHOWN = 10;
const ATTEMPTS_SHOWN = 3;

export function renderAnomalies(pass: FinalPass): Anomalies {
  const out = {} as Anomalies;
  ANOMALY_TYPES.forEach((type, t) => {
    const top = pass.top[t];
    out[type] = {
      count: pass.counts[t],
      keys: pass.keyCounts[t],
      examples: top.ids.map((id, i) => render(pass, t, id, top.c1[i], top.c2[i])),
    };
    if (pass.uncertainCounts[t] > 0) out[type].uncertain = uncertain(pass, t);
  });
  return out;
}

/** A type's uncertain anomalies: each example as the type's, with its margin and the uncertainty it fell within (µs). */
function uncertain(pass: FinalPass, t: number): UncertainEntry {
  const top = pass.uncertainTop[t];
  return {
    count: pass.uncertainCounts[t],
    keys: pass.uncertainKeyCounts[t],
    examples: top.ids.map((id, i) => {
      const ex = render(pass, t, id, top.c1[i], top.c2[i]);
      const { margin, uncertainty } = pass.uncertainMargins[t].get(id)!;
      ex.margin = margin;
      ex.uncertainty = uncertainty;
      ex.note += `; uncertain: ${margin} µs apart on two hosts' clocks, known to ±${uncertainty} µs`;
      return ex;
    }),
  };
}

function render(p: FinalPass, t: number, id: number, c1: number, c2: number): Example {
  switch (t) {
    case T.lost:
      return lost(p, id);
    case T.unseen:
      return unseen(p, id);
    case T.abandoned:
      return abandoned(p, id);
    case T.duplicate: {
      const ex = eventExample(p, id, p.store.evEnd[id]);
      ex.first = ref(p, c1);
      ex.note = `applied again at ${p.store.evEnd[id]} (first applied at ${p.store.evEnd[c1]})`;
      return ex;
    }
    case T.reorder:
    case T.regression: {
      const ex = eventExample(p, id, p.store.evEnd[id]);
      const laterApply = p.firstApply[c1];
      const laterSeq = p.store.messages.b[c1];
      ex.later = { seq: laterSeq, event: ref(p, laterApply) };
      ex.note =
        (t === T.reorder ? `seq ${ex.seq} first landed at ${p.store.evEnd[id]}` : `seq ${ex.seq} applied again at ${p.store.evEnd[id]}`) +
        ` after seq ${laterSeq} had landed at ${p.store.evEnd[laterApply]}`;
      return ex;
    }
    case T.gap:
      return gap(p, id);
    case T.overlap:
      return overlap(p, id);
    case T.split:
      return split(p, id, c1, c2);
    case T.phantom:
      return phantom(p, id);
    case T.ghost: {
      const ex = eventExample(p, id, p.store.evEnd[id]);
      ex.ack = 'failed' satisfies AckStatus;
      ex.note = `applied at ${p.store.evEnd[id]} although every send of it definitely failed`;
      return ex;
    }
    case T['unknown-delivered']: {
      const ex = eventExample(p, id, p.store.evEnd[id]);
      ex.ack = 'unknown' satisfies AckStatus;
      ex.note = `applied at ${p.store.evEnd[id]}; the sender never learned whether it was written`;
      return ex;
    }
    case T.retried: {
      const ex = eventExample(p, id, eventTime(p.store, id));
      ex.note = `handler failed (${p.store.evEnd[id] === p.store.evEnd[id] ? `at ${p.store.evEnd[id]}` : 'no end'})`;
      return ex;
    }
    case T.displaced: {
      const ex = eventExample(p, id, p.store.evEnd[id]);
      ex.stream = { firstApplies: c1, inOrder: c2, displaced: c1 - c2 };
      ex.note = `first applied out of place at ${p.store.evEnd[id]} (stream: ${c1} first applies, longest in-order run ${c2})`;
      return ex;
    }
    default:
      throw new Error(`no renderer for anomaly ${t}`);
  }
}

export function ref(p: FinalPass, ev: number): EventRef {
  const s = p.store;
  const end = s.evEnd[ev];
  const offset = s.evOffset[ev];
  const outcome = s.evOutcome[ev];
  return {
    consumer: s.evConsumer[ev] >= 0 ? s.consumers.value(s.evConsumer[ev]) : null,
    lane: s.evLane[ev] >= 0 ? s.lanes.value(s.evLane[ev]) : null,
    offset: offset === offset ? offset : null,
    start: s.evStart[ev],
    end: end === end ? end : null,
    outcome: outcome === OUT_OK ? 'ok' : outcome === OUT_ERROR ? 'error' : null,
  };
}

function identity(p: FinalPass, ev: number): { key: string | null; producer: string | null; seq: number | null } {
  const s = p.store;
  const k = s.keyOf(ev);
  const pr = s.producerOf(ev);
  const seq = s.seqOf(ev);
  return {
    key: k >= 0 ? s.keys.value(k) : null,
    producer: pr >= 0 ? s.producers.value(pr) : null,
    seq: seq === seq ? seq : null,
  };
}

function eventExample(p: FinalPass, ev: number, at: number): Example {
  return { ...identity(p, ev), at, note: '', event: ref(p, ev) };
}

function messageIdentity(p: FinalPass, m: number): { key: string; producer: string; seq: number } {
  const s = p.store;
  const st = s.messages.a[m];
  return { key: s.keys.value(s.streams.b[st]), producer: s.producers.value(s.streams.a[st]), seq: s.messages.b[m] };
}

function ackStatus(st: number): AckStatus {
  return st === ST_OK ? 'ok' : st === ST_FAILED ? 'failed' : 'unknown';
}

function lost(p: FinalPass, m: number): Example {
  const s = p.store;
  const sentAt = s.firstSend[m] === s.firstSend[m] ? s.firstSend[m] : null;
  const ackedAt = s.firstAck[m] === s.firstAck[m] ? s.firstAck[m] : null;
  return {
    ...messageIdentity(p, m),
    at: sentAt ?? (ackedAt as number),
    note: `acknowledged as written but never delivered (sent ${s.sendCount[m]}x, first at ${sentAt ?? 'unknown'})`,
    ack: 'ok' satisfies AckStatus,
    sends: s.sendCount[m],
    sentAt,
    acks: s.ackCount[m],
  };
}

function unseen(p: FinalPass, m: number): Example {
  const ex = lost(p, m);
  const s = p.store;
  const r = s.remaining;
  const lane = s.ackLane[m] > 0 ? s.lanes.value(s.ackLane[m] - 1) : null;
  const count = (n: number | null) => `${n} message${n === 1 ? '' : 's'}`;
  const held = !r || !r.known
    ? 'the broker could not be asked what it still held'
    : lane !== null && r.lanes !== null && Object.hasOwn(r.lanes, lane)
      ? `the broker still held ${count(r.lanes[lane])} on its lane ${lane} (${r.total} for the run)`
      : `the broker still held ${count(r.total)} for the run`;
  ex.note = `acknowledged as written, not delivered before the run ended; ${held} (sent ${ex.sends as number}x, first at ${ex.sentAt ?? 'unknown'})`;
  return ex;
}

function eventsOf(p: FinalPass, m: number): number[] {
  const evs: number[] = [];
  for (let ev = p.evByMsgStart[m]; ev < p.evByMsgStart[m + 1]; ev++) evs.push(ev);
  return evs.sort((a, b) => p.cmpEvent(a, b));
}

function abandoned(p: FinalPass, m: number): Example {
  const s = p.store;
  const evs = eventsOf(p, m);
  let at = -Infinity;
  for (const ev of evs) at = Math.max(at, eventTime(s, ev));
  const errors = evs.filter((ev) => s.evOutcome[ev] === OUT_ERROR).length;
  const unfinished = evs.filter((ev) => s.evEnd[ev] !== s.evEnd[ev]).length;
  return {
    ...messageIdentity(p, m),
    at,
    note: `delivered ${evs.length}x but never applied (${errors} failed, ${unfinished} never finished)`,
    ack: ackStatus(p.status[m]),
    attempts: evs.length,
    events: evs.slice(0, ATTEMPTS_SHOWN).map((ev) => ref(p, ev)),
  };
}

function gap(p: FinalPass, ev: number): Example {
  const s = p.store;
  const ex = eventExample(p, ev, s.evEnd[ev]);
  const m = s.evMsg[ev];
  const missingSeq = s.messages.b[m] - 1;
  const prev = s.messages.get(s.messages.a[m], missingSeq);
  let status: string;
  if (prev < 0 || p.status[prev] === ST_UNSENT) status = 'never sent';
  else if (p.evByMsgStart[prev] === p.evByMsgStart[prev + 1]) status = 'never delivered';
  else status = 'never applied';
  ex.missing = { seq: missingSeq, status, ack: prev >= 0 && p.status[prev] !== ST_UNSENT ? ackStatus(p.status[prev]) : null };
  ex.note = `seq ${ex.seq} first landed at ${s.evEnd[ev]} but seq ${missingSeq} was ${status}`;
  return ex;
}

function overlap(p: FinalPass, ev: number): Example {
  const s = p.store;
  const t = s.evStart[ev];
  const ex = eventExample(p, ev, t);
  // The other event: the earliest (example order) of those running when this one started.
  const k = s.keyOf(ev);
  let other = -1;
  for (let i = p.evByKeyStart[k]; i < p.evByKeyStart[k + 1]; i++) {
    const o = p.evByKey[i];
    if (s.evStart[o] > t) break;
    if (o !== ev && s.evEnd[o] > t && (other < 0 || p.cmpEvent(o, other) < 0)) other = o;
  }
  const id = identity(p, other);
  const otherRef = ref(p, other);
  ex.other = { producer: id.producer, seq: id.seq, event: otherRef };
  ex.note = `started at ${t} while seq ${id.seq} of ${id.producer} was running on ${otherRef.consumer ?? 'an unnamed consumer'} (${otherRef.start}..${otherRef.end})`;
  return ex;
}

function split(p: FinalPass, k: number, first: number, second: number): Example {
  const s = p.store;
  const perLane = new Map<string, number>();
  for (let i = p.evByKeyStart[k]; i < p.evByKeyStart[k + 1]; i++) {
    const ev = p.evByKey[i];
    if (s.evLane[ev] >= 0 && p.isApply(ev)) {
      const lane = s.lanes.value(s.evLane[ev]);
      perLane.set(lane, (perLane.get(lane) ?? 0) + 1);
    }
  }
  const lanes = [...perLane.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const a = identity(p, first);
  const b = identity(p, second);
  const firstRef = ref(p, first);
  const secondRef = ref(p, second);
  return {
    key: s.keys.value(k),
    at: s.evEnd[second],
    note: `applied from ${lanes.length} lanes: ${firstRef.lane} first, then ${secondRef.lane} at ${secondRef.end}`,
    lanes: lanes.slice(0, LANES_SHOWN).map(([lane, applies]) => ({ lane, applies })),
    laneCount: lanes.length,
    first: { producer: a.producer, seq: a.seq, event: firstRef },
    second: { producer: b.producer, seq: b.seq, event: secondRef },
  };
}

function phantom(p: FinalPass, ev: number): Example {
  const ex = eventExample(p, ev, eventTime(p.store, ev));
  const reason =
    ex.key === null
      ? 'null key'
      : ex.seq === null
        ? 'null seq'
        : ex.producer === null
          ? 'null producer'
          : p.store.evMsg[ev] < 0
            ? 'seq no send can have'
            : 'never sent';
  ex.reason = reason;
  ex.note = `processed but ${reason === 'never sent' ? 'never sent' : `cannot name a message (${reason})`}`;
  return ex;
}

