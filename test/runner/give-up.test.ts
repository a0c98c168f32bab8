/** Giving up early: the rules of harness/runner/give-up.ts on sampled producer figures. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GiveUpWatch, GIVE_UP_AFTER_MS } from '../../harness/runner/give-up.ts';

const S = 1_000_000; // µs per second

function watch(over: Partial<ConstructorParameters<typeof GiveUpWatch>[0]> = {}) {
  return new GiveUpWatch({ measureStartUs: 2 * S, delayBoundMs: 2_000, targetPerSecond: 1_000, planEndUs: 60 * S, inFault: () => false, ...over });
}

/** Feeds samples every 500 ms from `fromS` to `toS`; returns the first reason and its time (s). */
function feed(w: GiveUpWatch, fromS: number, toS: number, at: (t: number) => { sent: number; behindMs: number }): { reason: string; atS: number } | null {
  for (let t = fromS; t <= toS; t += 0.5) {
    const reason = w.sample({ atUs: t * S, ...at(t) });
    if (reason) return { reason, atS: t };
  }
  return null;
}

test('a producer on schedule never gives up', () => {
  assert.equal(feed(watch(), 0, 60, (t) => ({ sent: t * 1000, behindMs: 5 })), null);
});

test('publish delay above the bound for 3 s after the warm-up gives up, with the reason', () => {
  const got = feed(watch(), 0, 60, (t) => ({ sent: t * 1000, behindMs: t > 5 ? 2500 : 10 }));
  assert.ok(got);
  assert.equal(got.atS, 5.5 + GIVE_UP_AFTER_MS / 1000);
  assert.match(got.reason, /^gave up early: publish delay 2500 ms, above run.giveUpDelayMs 2000 ms for 3 s/);
});

test('a delay that comes and goes (under 3 s at a time) does not give up; neither does one during the warm-up', () => {
  assert.equal(feed(watch(), 0, 60, (t) => ({ sent: t * 1000, behindMs: Math.floor(t) % 4 < 2 ? 5000 : 0 })), null);
  assert.equal(feed(watch({ measureStartUs: 30 * S }), 0, 29.5, (t) => ({ sent: t * 1000, behindMs: 9000 })), null);
});

test('under half the fixed target rate for 3 s gives up; no target (steps, unlimited) never does on rate', () => {
  const slow = (t: number) => ({ sent: t * 400, behindMs: 0 });
  const got = feed(watch(), 0, 60, slow);
  assert.ok(got);
  assert.match(got.reason, /sending 400\/s over the last 3 s, under half the target 1000\/s/);
  assert.equal(feed(watch({ targetPerSecond: null }), 0, 60, slow), null);
  // 60% of the target is slow but not hopeless.
  assert.equal(feed(watch(), 0, 60, (t) => ({ sent: t * 600, behindMs: 0 })), null);
});

test('fault windows and their settle time are skipped: a publish pause does not give up, the same delay outside one does', () => {
  const inFault = (t: number) => t >= 10 * S && t <= 20 * S;
  const paused = (t: number) => ({ sent: t < 10 || t > 20 ? t * 1000 : 10_000, behindMs: t >= 10 && t <= 20 ? 9000 : 0 });
  assert.equal(feed(watch({ inFault }), 0, 60, paused), null);
  assert.ok(feed(watch(), 0, 60, paused));
});

test('past the planned end the rate is not checked (producers finishing), the delay still is', () => {
  const w = watch({ planEndUs: 10 * S });
  assert.equal(feed(w, 0, 30, (t) => ({ sent: Math.min(t, 10) * 1000, behindMs: 0 })), null);
  assert.ok(feed(watch({ planEndUs: 10 * S }), 0, 30, (t) => ({ sent: t * 1000, behindMs: t > 10 ? 4000 : 0 })));
});
