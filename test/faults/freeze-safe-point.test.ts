/**
 * A frozen consumer stops only itself (harness/faults/freeze.ts). The consumers share one
 * SQLite state store, locked whole for a write; a process stopped inside its store transaction
 * held the other consumer in busy_timeout for the whole freeze, which on Kafka got it evicted
 * as well (the group Empty while c1 was frozen: a CI failure of the Kafka freeze test). The
 * freeze now lands where the process holds no lock (the kernel's lock table says so: the
 * fault's `storeLock` evidence), so c2 goes on in every window.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runHere } from '../../brokers/memory/test/run-here.ts';
import { storeLock } from '../../harness/faults/freeze.ts';
import { openDatabase } from '../../harness/consumer/entity-store.ts';

const SCENARIO = new URL('./fixtures/freeze-busy-consumer.yaml', import.meta.url).pathname;

function processEnds(runDir: string, consumer: string): number[] {
  return readFileSync(join(runDir, 'history.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; consumer?: string; end: number })
    .filter((e) => e.type === 'process' && e.consumer === consumer)
    .map((e) => e.end);
}

test('a frozen consumer stops itself, holding no store lock: the other consumer goes on inside every freeze', { timeout: 120_000 }, async () => {
  const { result, runDir } = await runHere(SCENARIO);
  const r = result as unknown as { verdict: { status: string; reasons: string[] }; timeline: { faults: { name: string; startUs: number; plannedEndUs: number; evidence: Record<string, unknown> }[] } };
  assert.equal(r.verdict.status, 'pass', r.verdict.reasons.join('; '));
  const c1 = processEnds(runDir, 'c1');
  const c2 = processEnds(runDir, 'c2');
  assert.equal(r.timeline.faults.length, 6);
  const stalled: string[] = [];
  for (const f of r.timeline.faults) {
    assert.equal(f.evidence.state, 'T', `${f.name}: c1 was stopped`);
    assert.equal(f.evidence.stoppedBy, 'itself', `${f.name}: c1 stopped itself`);
    assert.equal(f.evidence.storeLock, 'free', `${f.name}: c1 held SQLite's write lock while stopped`);
    // From when the runner saw c1 stopped to 5 ms before the planned end (the end's timer may
    // fire a millisecond early, and c1 stamps with its own clock): c1 applies nothing, c2
    // something. On a loaded machine the stop lands later (the group read, then the request,
    // read between two event-loop turns).
    const stoppedAtUs = f.evidence.stoppedAtUs as number;
    assert.ok(f.plannedEndUs - stoppedAtUs >= 150_000, `${f.name}: stopped ${f.evidence.stoppedAfterMs} ms into a 400 ms freeze`);
    const inside = (t: number) => t > stoppedAtUs && t < f.plannedEndUs - 5_000;
    assert.equal(c1.filter(inside).length, 0, `${f.name}: c1 applied while frozen`);
    if (!c2.some(inside)) stalled.push(f.name);
  }
  assert.deepEqual(stalled, [], 'windows in which c2 applied nothing');
});

test("the freeze's storeLock evidence says whether that process holds SQLite's write lock, not whether anyone does", () => {
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-store-lock-')), 'state.sqlite');
  const db = openDatabase(file);
  db.exec('CREATE TABLE t (x INTEGER)');
  assert.equal(storeLock(file, process.pid), 'free');
  db.exec('BEGIN IMMEDIATE');
  db.exec('INSERT INTO t VALUES (1)');
  assert.equal(storeLock(file, process.pid), 'held');
  // Another process's transaction (the other consumer's group commit) is not the frozen one's:
  // asking SQLite for the lock said `held` here, and failed a unit-tier run.
  assert.equal(storeLock(file, process.ppid), 'free');
  db.exec('COMMIT');
  assert.equal(storeLock(file, process.pid), 'free');
  db.close();
  assert.match(storeLock(join(file, 'none'), process.pid), /^unknown: /);
});
