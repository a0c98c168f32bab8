/**
 * Real runs on the memory broker, end to end through the runner (run-here.ts: in this process,
 * as `convoy run` runs them): worker processes, the fault timeline (stall,
 * kill-consumer, handler-errors, redrive, add-partitions), every concurrency mode, every
 * poison policy and the checker, in seconds and with no broker process (three runs at a time:
 * they mostly wait on their schedules). Each scenario (scenarios/) states what it must show,
 * inside its fault's window where it has one; a pass means every expectation held.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { runHere } from './run-here.ts';

const SCENARIOS = new URL('./scenarios/', import.meta.url).pathname;

/** What a scenario's expectations cannot say: failed attempts (retried) per abandoned message. */
const ATTEMPTS: Record<string, number> = { 'poison-retry.yaml': 3, 'poison-dead-letter.yaml': 1 };

type Result = Record<string, any>;
/** The consumers' live count of stale applies, as reported to the runner's progress line. */
const staleSoFar = (r: Result): number => Object.values(r.harness.consumers).reduce((n: number, c: any) => n + c.stale, 0);
/** What else a scenario's run must show, beyond its expectations. */
const MORE: Record<string, (r: Result) => void> = {
  'unordered-pool.yaml': (r) => {
    // The consumers ran naive, which skips nothing live; versioned, replayed after the run, skips the late ones.
    assert.equal(staleSoFar(r), 0, 'naive skips nothing');
    assert.equal(r.workload.finalState.versioned.mode, 'replay');
    assert.ok(r.workload.finalState.versioned.effects.skipped > 0, 'replayed versioned skips late messages');
  },
  'key-pool.yaml': (r) => {
    assert.equal(r.workload.finalState.naive.wrong, 0);
    assert.equal(staleSoFar(r), 0);
  },
  'two-producer-processes.yaml': (r) => {
    assert.deepEqual(Object.keys(r.harness.consumers).sort(), ['c1', 'c2']);
    assert.ok(Object.values(r.harness.consumers).every((c: any) => c.applied > 0), 'both consumers of the group processed messages');
    assert.equal(Object.keys(r.harness.producers).length, 2, `producer processes: ${Object.keys(r.harness.producers)}`);
  },
};

describe('runs on the memory broker', { concurrency: 3 }, () => {
  for (const file of readdirSync(SCENARIOS).filter((f) => f.endsWith('.yaml')).sort()) {
    test(file, async () => {
      const { result } = await runHere(SCENARIOS + file);
      const missed = (result.expectations as { held: boolean | null }[]).filter((e) => e.held !== true);
      assert.equal(result.verdict.status, 'pass', `${file}: ${JSON.stringify({ verdict: result.verdict, missed, harness: result.harness })}`);
      assert.ok((result.workload?.sent ?? 0) > 0);
      // The result says what the broker was: a test double.
      assert.match(result.environment?.emulator?.notes ?? '', /test double/);
      // Its count is exact: a run whose every acked message was processed ends its drain on the
      // broker's word, without the wait for quiet a real broker needs.
      const drain = (result.harness as { drain: { endedBy: string; reason: string } }).drain;
      if (drain.endedBy === 'processed') assert.match(drain.reason, /the broker holds nothing for the run/);
      MORE[file]?.(result as Result);
      if (ATTEMPTS[file]) assert.equal(result.anomalies.retried.count, ATTEMPTS[file] * result.anomalies.abandoned.count, 'every poison message tried as often as its policy says');
    });
  }
});
