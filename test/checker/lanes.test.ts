/**
 * lost or unseen per ack lane: the lane all of a message's acks name decides where
 * the broker's `remaining` event reports it; hand-picked cases beside the goldens and the
 * oracle properties.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkEvents, checkText } from '../../harness/checker/checker.ts';
import { toJsonl, type Ev } from './helpers.ts';

const sent = (key: string, lane?: string | number): Ev[] => [
  { type: 'send', key, producer: 'p', seq: 1, at: 100 },
  { type: 'ack', key, producer: 'p', seq: 1, at: 110, ok: true, ...(lane === undefined ? {} : { lane }) },
];
const remaining = (lanes: Record<string, number> | undefined, total = 2, known = true): Ev => ({
  type: 'remaining', at: 2000, known, total: known ? total : null, ...(lanes ? { lanes } : {}),
});

/** The verdict on each key's one message, through objects and through text. */
function verdicts(events: Ev[]): Record<string, string> {
  const byObjects = checkEvents(events);
  const byText = checkText(toJsonl(events));
  assert.equal(JSON.stringify(byText.anomalies), JSON.stringify(byObjects.anomalies), 'objects and lines agree');
  const out: Record<string, string> = {};
  for (const t of ['lost', 'unseen'] as const) for (const ex of byObjects.anomalies[t].examples) out[ex.key as string] = t;
  return out;
}

test('an emptied lane is lost while another lane still holds; a lane that holds is unseen', () => {
  const events = [...sent('a', 'p0'), ...sent('b', 'p1'), remaining({ p0: 0, p1: 2 })];
  assert.deepEqual(verdicts(events), { a: 'lost', b: 'unseen' });
});

test('no ack lane, or a lane the broker does not report: the total decides', () => {
  assert.deepEqual(verdicts([...sent('a'), ...sent('b', 'p9'), remaining({ p0: 0 }, 2)]), { a: 'unseen', b: 'unseen' });
  assert.deepEqual(verdicts([...sent('a'), ...sent('b', 'p9'), remaining({ p0: 0 }, 0)]), { a: 'lost', b: 'lost' });
  // A lane reported as holding messages does not outvote an empty total for other lanes.
  assert.deepEqual(verdicts([...sent('a', 'p0'), ...sent('b'), remaining({ p0: 1 }, 0)]), { a: 'unseen', b: 'lost' });
});

test('an empty lane is not lost while the broker holds messages off its lanes (retry, dead-letter queues)', () => {
  // total 3, the lanes 1: two held elsewhere, perhaps this lane's.
  assert.deepEqual(verdicts([...sent('a', 'p0'), ...sent('b', 'p1'), remaining({ p0: 0, p1: 1 }, 3)]), { a: 'unseen', b: 'unseen' });
  assert.deepEqual(verdicts([...sent('a', 'p0'), ...sent('b', 'p1'), remaining({ p0: 0, p1: 1 }, 1)]), { a: 'lost', b: 'unseen' });
});

test('not known: unseen, whatever its lanes say', () => {
  assert.deepEqual(verdicts([...sent('a', 'p0'), remaining({ p0: 0 }, 0, false)]), { a: 'unseen' });
});

test('acks that name different lanes, or a lane beside none, go by the total', () => {
  const second = (key: string, lane?: string): Ev => ({ type: 'ack', key, producer: 'p', seq: 1, at: 120, ok: null, ...(lane ? { lane } : {}) });
  const events = [...sent('a', 'p0'), second('a', 'p1'), ...sent('b', 'p0'), second('b'), ...sent('c', 'p0'), second('c', 'p0'), remaining({ p0: 0, p1: 0, p2: 1 }, 1)];
  assert.deepEqual(verdicts(events), { a: 'unseen', b: 'unseen', c: 'lost' });
});

test('a numeric ack lane is its decimal text', () => {
  assert.deepEqual(verdicts([...sent('a', 3), remaining({ '3': 0, '4': 2 })]), { a: 'lost' });
});

test('remaining events tied in time and count keep the lanes all report, with the larger count, in any order', () => {
  const x = remaining({ p0: 0, p1: 2, p2: 0 });
  const y = remaining({ p1: 0, p0: 1 });
  const events = [...sent('a', 'p0'), ...sent('b', 'p1'), ...sent('c', 'p2')];
  for (const order of [[x, y], [y, x]]) {
    const r = checkEvents([...events, ...order]);
    assert.deepEqual(r.remaining?.lanes, { p0: 1, p1: 2 });
    assert.deepEqual(verdicts([...events, ...order]), { a: 'unseen', b: 'unseen', c: 'unseen' });
  }
  // Without the tie, the latest report alone.
  assert.deepEqual(verdicts([...events, x, { ...y, at: 2001, total: 1 }]), { a: 'unseen', b: 'lost', c: 'unseen' });
});

test("an unseen example's note names the lane that decided", () => {
  const r = checkEvents([...sent('a', 'p1'), remaining({ p0: 0, p1: 2 }, 3)]);
  assert.match(r.anomalies.unseen.examples[0].note, /still held 2 messages on its lane p1 \(3 for the run\)/);
});
