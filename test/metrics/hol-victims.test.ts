import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { holVictims } from '../../harness/metrics/hol-victims.ts';
import { redeliveries } from '../../harness/metrics/redeliveries.ts';

const ms = 1000;
const ack = (key: string, seq: number, at: number) => ({ type: 'ack', key, producer: 'p', seq, at, ok: true });
const proc = (key: string, seq: number, lane: string, start: number, end: number, outcome: 'ok' | 'error') => ({ type: 'process', key, producer: 'p', seq, consumer: 'c1', lane, received: start, start, end, outcome });

test('HOL victims: other keys of the lane written before a poison message gave up and started after it, with the time they waited inside the block', async () => {
  const ev = [
    // The poison message: k1 seq 1 on lane p0, failing from 100 ms to 400 ms; beyond its first
    // attempt (100-150 ms, as long as any message's) it blocks the lane from 150 to 400 ms.
    ack('k1', 1, 0),
    proc('k1', 1, 'p0', 100 * ms, 150 * ms, 'error'),
    proc('k1', 1, 'p0', 250 * ms, 400 * ms, 'error'),
    // k2, written at 200 ms, started at 400 ms: waited 200 ms inside the block.
    ack('k2', 1, 200 * ms),
    proc('k2', 1, 'p0', 400 * ms, 401 * ms, 'ok'),
    // k3, written at 50 ms (before the block), started at 401 ms: waited the whole 250 ms block.
    ack('k3', 1, 50 * ms),
    proc('k3', 1, 'p0', 401 * ms, 402 * ms, 'ok'),
    // k1's own later message waits too, but it is the poisoned key's own: no victim.
    ack('k1', 2, 120 * ms),
    proc('k1', 2, 'p0', 402 * ms, 403 * ms, 'ok'),
    // Another lane flows: no victim.
    ack('k4', 1, 200 * ms),
    proc('k4', 1, 'p1', 201 * ms, 202 * ms, 'ok'),
    // Written after the block ended: no victim.
    ack('k5', 1, 450 * ms),
    proc('k5', 1, 'p0', 451 * ms, 452 * ms, 'ok'),
    // Dead-lettered at its first attempt on lane p2: blocks nothing beyond a normal handling.
    ack('k6', 1, 500 * ms),
    proc('k6', 1, 'p2', 500 * ms, 510 * ms, 'error'),
    ack('k7', 1, 505 * ms),
    proc('k7', 1, 'p2', 510 * ms, 511 * ms, 'ok'),
  ];
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-hol-')), 'h.jsonl');
  writeFileSync(file, ev.map((e) => JSON.stringify(e)).join('\n') + '\n');
  assert.deepEqual(await holVictims(file), { blockers: 2, blockedMs: 250, victims: 2, victimKeys: 2, addedMsMean: 225, addedMsMax: 250, addedMsTotal: 450 });
});

test('HOL victims in key mode: a message of another lane that waited for a worker while a retrying message held one; the blocked key\'s lane itself flows', async () => {
  // Consumer c1 with 2 workers. k1 (lane p0) fails at 100-150 ms and again at 350-400 ms: between, its
  // worker sleeps the backoff, so the block holds a worker from 150 to 400 ms. k9 holds the other from 100 to 500 ms.
  const recv = (key: string, seq: number, lane: string, received: number, start: number, end: number, outcome: 'ok' | 'error' = 'ok') => ({ ...proc(key, seq, lane, start, end, outcome), received });
  const ev = [
    ack('k1', 1, 0),
    recv('k1', 1, 'p0', 90 * ms, 100 * ms, 150 * ms, 'error'),
    recv('k1', 1, 'p0', 90 * ms, 350 * ms, 400 * ms, 'error'),
    ack('k9', 1, 0),
    recv('k9', 1, 'p2', 90 * ms, 100 * ms, 500 * ms),
    // k2 on lane p1, received at 200 ms, waited for a worker until the block let one go at 400 ms: 200 ms.
    ack('k2', 1, 190 * ms),
    recv('k2', 1, 'p1', 200 * ms, 400 * ms, 401 * ms),
    // k3 on the blocked key's own lane p0, received at 160 ms (the lane flows in key mode), both
    // workers busy: it waited 160-400 ms for one, a victim behind the worker (240 ms).
    ack('k3', 1, 155 * ms),
    recv('k3', 1, 'p0', 160 * ms, 401 * ms, 402 * ms),
    // k4 on lane p0, on a second consumer c2, waited on its own key's previous message (300-450 ms),
    // which is no one else's doing: no victim.
    ack('k4', 1, 0),
    { ...recv('k4', 1, 'p0', 290 * ms, 300 * ms, 450 * ms), consumer: 'c2' },
    ack('k4', 2, 200 * ms),
    { ...recv('k4', 2, 'p0', 210 * ms, 450 * ms, 451 * ms), consumer: 'c2' },
  ];
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-hol-key-')), 'h.jsonl');
  writeFileSync(file, ev.map((e) => JSON.stringify(e)).join('\n') + '\n');
  // Per lane alone (before), k2 (another lane) was not counted, and k4 (written before the block
  // ended, started after it, on its lane) was, with 200 ms.
  assert.deepEqual(await holVictims(file), { blockers: 1, blockedMs: 250, victims: 2, victimKeys: 2, addedMsMean: 220, addedMsMax: 240, addedMsTotal: 440 });
});

// The broker's delivery counts (harness/metrics/redeliveries.ts), from the same process events.
test('redeliveries: messages by their highest broker delivery count, and the never-applied ones by their last', async () => {
  const counted = (key: string, seq: number, deliveryCount: number, outcome: 'ok' | 'error') => ({ ...proc(key, seq, 'p0', 0, 1, outcome), deliveryCount });
  const dir = mkdtempSync(join(tmpdir(), 'convoy-redeliveries-'));
  const file = join(dir, 'history.jsonl');
  // k1 1: applied first time; k1 2: released once, applied at 2; k2 1: released until archived at 3.
  const ev = [counted('k1', 1, 1, 'ok'), counted('k1', 2, 1, 'error'), counted('k1', 2, 2, 'ok'), counted('k2', 1, 1, 'error'), counted('k2', 1, 2, 'error'), counted('k2', 1, 3, 'error')];
  writeFileSync(file, ev.map((e) => JSON.stringify(e)).join('\n') + '\n');
  assert.deepEqual(await redeliveries(file), { byCount: { '1': 1, '2': 1, '3': 1 }, redelivered: 2, neverApplied: { '3': 1 }, neverAppliedKeys: 1 });
  writeFileSync(file, JSON.stringify(proc('k1', 1, 'p0', 0, 1, 'ok')) + '\n');
  assert.equal(await redeliveries(file), null, 'no count reported: no section');
});
