import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessagePlan, intendedSchedule, messagesBefore, sizePicker, type PlanInput, type PlannedMessage } from '../../harness/workload/schedule.ts';
import { Rng } from '../../harness/workload/rng.ts';
import type { WorkloadSpec } from '../../harness/spec/types.ts';

function workload(over: Partial<WorkloadSpec> = {}): PlanInput['workload'] {
  return {
    keys: { count: 100, distribution: { kind: 'zipf', s: 1.1 }, prefix: 'k' },
    rate: { kind: 'fixed', perSecond: 1000 },
    size: { kind: 'uniform', min: 100, max: 200 },
    durationMs: 2000,
    warmupMs: 500,
    producers: [{ name: 'orders', processes: 3, sharedKeys: false }],
    ...over,
  };
}

const all = (plan: MessagePlan, filter?: { producer: string; process: number }) => [...plan.messages(filter)];

test('fixed rate: message i is due at i/rate', () => {
  const f = intendedSchedule({ kind: 'fixed', perSecond: 1000 });
  assert.deepEqual([0, 1, 999, 1000].map(f), [0, 1000, 999_000, 1_000_000]);
  const g = intendedSchedule({ kind: 'fixed', perSecond: 3 });
  assert.deepEqual([0, 1, 2, 3].map(g), [0, 333_333, 666_666, 1_000_000]);
  // warm-up 0.5 s + 2 s at 1000/s = 2500 messages.
  assert.equal(messagesBefore({ kind: 'fixed', perSecond: 1000 }, 2_500_000), 2500);
  assert.equal(messagesBefore({ kind: 'fixed', perSecond: 3 }, 1_000_000), 3);
  assert.equal(messagesBefore({ kind: 'fixed', perSecond: 3 }, 1_000_001), 4);
});

test('steps: piecewise, the last rate goes on, a last 0 ends the plan', () => {
  const f = intendedSchedule({ kind: 'steps', steps: [{ perSecond: 10, forMs: 1000 }, { perSecond: 100, forMs: 1000 }] });
  assert.equal(f(0), 0);
  assert.equal(f(9), 900_000);
  assert.equal(f(10), 1_000_000); // the second step starts with message 10
  assert.equal(f(11), 1_010_000);
  assert.equal(f(109), 1_990_000);
  assert.equal(f(110), 2_000_000); // past the steps: 100/s goes on
  assert.equal(f(120), 2_100_000);
  const pause = intendedSchedule({ kind: 'steps', steps: [{ perSecond: 10, forMs: 1000 }, { perSecond: 0, forMs: 500 }, { perSecond: 10, forMs: 1000 }] });
  assert.equal(pause(9), 900_000);
  assert.equal(pause(10), 1_500_000); // after the pause
  const ending = { kind: 'steps' as const, steps: [{ perSecond: 10, forMs: 1000 }, { perSecond: 0, forMs: 1 }] };
  assert.equal(intendedSchedule(ending)(10), null);
  const plan = new MessagePlan({ seed: 1, workload: workload({ rate: ending, durationMs: undefined, messages: 1000 }) });
  assert.equal(plan.total, 10);
});

test('unlimited: no intended time; bounded by messages, or else only by time', () => {
  const p = new MessagePlan({ seed: 1, workload: workload({ rate: { kind: 'unlimited' }, durationMs: 1000, messages: undefined }) });
  assert.equal(p.total, Infinity);
  const some = [...p.messages(undefined, 50)];
  assert.equal(some.length, 50);
  assert.ok(some.every((m) => m.intendedOffsetUs === null));
  const q = new MessagePlan({ seed: 1, workload: workload({ rate: { kind: 'unlimited' }, messages: 300 }) });
  assert.equal(q.total, 300);
  assert.equal(all(q).length, 300);
});

test('duration and messages: whichever comes first; warm-up included', () => {
  const p = new MessagePlan({ seed: 1, workload: workload() });
  assert.equal(p.total, 2500);
  assert.equal(p.measuredFromUs, 500_000);
  assert.equal(p.endUs, 2_500_000);
  const m = all(p);
  assert.equal(m.length, 2500);
  assert.equal(m[2499].intendedOffsetUs, 2_499_000);
  assert.equal(new MessagePlan({ seed: 1, workload: workload({ messages: 700 }) }).total, 700);
});

test('same seed, same plan; a different seed, a different plan', () => {
  const a = all(new MessagePlan({ seed: 9, workload: workload(), poison: { share: 0.05, policy: 'retry', maxAttempts: 3, backoffMs: 10 } }));
  const b = all(new MessagePlan({ seed: 9, workload: workload(), poison: { share: 0.05, policy: 'retry', maxAttempts: 3, backoffMs: 10 } }));
  const c = all(new MessagePlan({ seed: 10, workload: workload(), poison: { share: 0.05, policy: 'retry', maxAttempts: 3, backoffMs: 10 } }));
  assert.deepEqual(a, b);
  assert.notDeepEqual(a.map((m) => m.key), c.map((m) => m.key));
  assert.notDeepEqual(a.map((m) => m.size), c.map((m) => m.size));
  assert.notDeepEqual(a.map((m) => m.poison), c.map((m) => m.poison));
  const poisoned = a.filter((m) => m.poison).length / a.length;
  assert.ok(poisoned > 0.03 && poisoned < 0.07, `poison share ${poisoned}`);
});

test('keys, sizes and poison do not depend on the process count', () => {
  const pick = (m: PlannedMessage) => [m.key, m.size, m.poison];
  const poison = { share: 0.1, policy: 'dead-letter' as const, maxAttempts: 1, backoffMs: 0 };
  const one = all(new MessagePlan({ seed: 3, workload: workload({ producers: [{ name: 'orders', processes: 1, sharedKeys: false }] }), poison })).map(pick);
  const five = all(new MessagePlan({ seed: 3, workload: workload({ producers: [{ name: 'orders', processes: 5, sharedKeys: false }] }), poison })).map(pick);
  assert.deepEqual(one, five);
});

test('sharded producers: each process walks only its messages; a key has one process; seqs run 1, 2, 3...', () => {
  const w = workload({ producers: [{ name: 'orders', processes: 3, sharedKeys: false }, { name: 'payments', processes: 2, sharedKeys: false }] });
  const poison = { keys: ['k3'], policy: 'park-key' as const, maxAttempts: 1, backoffMs: 0 };
  const plan = new MessagePlan({ seed: 5, workload: w, poison });
  const whole = all(plan);
  const parts: PlannedMessage[] = [];
  for (const p of w.producers) for (let i = 0; i < p.processes; i++) {
    const mine = all(plan, { producer: p.name, process: i });
    assert.ok(mine.every((m) => m.producer === p.name && m.process === i));
    parts.push(...mine);
  }
  parts.sort((a, b) => a.index - b.index);
  assert.deepEqual(parts, whole);
  const owner = new Map<string, string>();
  const lastSeq = new Map<string, number>();
  for (const m of whole) {
    const who = `${m.producer}/${m.process}`;
    assert.equal(owner.get(m.key) ?? who, who, `key ${m.key} has one writer`);
    owner.set(m.key, who);
    const id = `${m.producer}/${m.key}`;
    assert.equal(m.seq, (lastSeq.get(id) ?? 0) + 1);
    lastSeq.set(id, m.seq);
    assert.equal(m.poison, m.key === 'k3');
  }
  assert.ok(new Set(whole.map((m) => m.producer)).size === 2, 'keys spread over both producers');
  assert.ok(new Set(whole.map((m) => `${m.producer}/${m.process}`)).size === 5, 'every process gets keys');
});

test('sharedKeys: processes take messages round-robin, seq from one counter per key', () => {
  const plan = new MessagePlan({ seed: 5, workload: workload({ producers: [{ name: 'orders', processes: 2, sharedKeys: true }] }) });
  const whole = all(plan);
  whole.forEach((m, i) => assert.equal(m.process, i % 2));
  const byKey = new Map<string, number[]>();
  for (const m of whole) byKey.set(m.key, [...(byKey.get(m.key) ?? []), m.seq]);
  for (const seqs of byKey.values()) assert.deepEqual(seqs, seqs.map((_, i) => i + 1));
  const hot = whole.filter((m) => m.key === 'k0');
  assert.ok(new Set(hot.map((m) => m.process)).size === 2, 'a key is written by both processes');
});

test('round-robin keys with messages = 3 x keys: every key gets seqs 1, 2, 3, its k-th in round k', () => {
  const plan = new MessagePlan({ seed: 5, workload: workload({ keys: { count: 40, distribution: { kind: 'round-robin' }, prefix: 'o' }, messages: 120 }) });
  const ms = all(plan);
  assert.equal(ms.length, 120);
  for (const m of ms) {
    assert.equal(m.keyIndex, m.index % 40);
    assert.equal(m.seq, Math.floor(m.index / 40) + 1);
  }
  const perKey = new Map<string, number[]>();
  for (const m of ms) perKey.set(m.key, [...(perKey.get(m.key) ?? []), m.seq]);
  assert.equal(perKey.size, 40);
  for (const seqs of perKey.values()) assert.deepEqual(seqs, [1, 2, 3]);
});

test('sizes: fixed, uniform within bounds, choice by weight', () => {
  const r = Rng.from(1);
  assert.equal(sizePicker({ kind: 'fixed', bytes: 64 })(r), 64);
  const u = sizePicker({ kind: 'uniform', min: 10, max: 12 });
  const seen = new Set<number>();
  for (let i = 0; i < 1000; i++) seen.add(u(r));
  assert.deepEqual([...seen].sort(), [10, 11, 12]);
  const c = sizePicker({ kind: 'choice', bytes: [100, 1000], weights: [3, 1] });
  let small = 0;
  for (let i = 0; i < 10_000; i++) if (c(r) === 100) small++;
  assert.ok(Math.abs(small / 10_000 - 0.75) < 0.02);
});

// Its speed is printed, not asserted: timed assertions fail on a loaded machine.
test('a process regenerates a 1M-message plan and keeps its share', () => {
  const plan = new MessagePlan({
    seed: 1,
    workload: workload({ keys: { count: 100_000, distribution: { kind: 'zipf', s: 1.0 }, prefix: 'k' }, rate: { kind: 'fixed', perSecond: 10_000 }, durationMs: 100_000, warmupMs: 0, producers: [{ name: 'orders', processes: 4, sharedKeys: false }] }),
    poison: { share: 0.001, policy: 'retry', maxAttempts: 2, backoffMs: 1 },
  });
  assert.equal(plan.total, 1_000_000);
  const t0 = performance.now();
  let n = 0;
  for (const _ of plan.messages({ producer: 'orders', process: 2 })) n++;
  const ms = performance.now() - t0;
  process.stdout.write(`# 1M-message plan, one process of 4 kept ${n} messages in ${ms.toFixed(0)} ms\n`);
  assert.ok(n > 0 && n < 1_000_000);
});
