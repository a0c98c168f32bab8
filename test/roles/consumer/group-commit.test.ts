/**
 * The consumer worker's group commit (harness/roles/consumer/group-commit.ts): a group's store writes
 * and history records are written together when it ends (store first), never before, and the
 * store ends in the same state as with one transaction per message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../harness/consumer/entity-store.ts';
import { HistoryWriter } from '../../../harness/history/writer.ts';
import type { ProcessEvent } from '../../../harness/history/events.ts';
import { GroupCommit } from '../../../harness/roles/consumer/group-commit.ts';
import { emptyPhases } from '../../../harness/workers/phases.ts';
import naive from '../../../harness/consumer/strategies/naive.ts';
import versioned from '../../../harness/consumer/strategies/versioned.ts';

const ORDER = { kind: 'order', events: 'state', cancelShare: 0 } as const;
const at = (key: string, seq: number) => ({ key, seq, producer: 'p' });
const tick = () => new Promise<void>((r) => setImmediate(r));

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-group-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function event(key: string, seq: number): ProcessEvent {
  return { type: 'process', key, producer: 'p', seq, consumer: 'c1', lane: 'p0', received: 1, start: 1, end: 2, outcome: 'ok' };
}

function lines(file: string): { key: string; seq: number }[] {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { key: string; seq: number });
}

test('a group is invisible to another connection and absent from the history until it ends; then both, in handling order', (t) => {
  const dir = tempDir(t);
  const store = openStore(join(dir, 'state.sqlite'), versioned, ORDER);
  const other = openStore(join(dir, 'state.sqlite'), versioned, ORDER, undefined, { busyTimeoutMs: 0 });
  const history = new HistoryWriter(join(dir, 'c1.jsonl'));
  const phases = emptyPhases();
  const group = new GroupCommit(store, history, phases);
  for (const [key, seq] of [['k1', 1], ['k2', 1], ['k1', 2]] as const) {
    assert.equal(group.apply(at(key, seq)), 'applied');
    group.record(event(key, seq));
  }
  assert.equal(other.finalStates().size, 0, 'the open transaction is not visible to another process');
  assert.deepEqual(lines(history.path), []);
  group.end();
  assert.deepEqual([...other.finalStates()].map(([k, s]) => [k, s.version]), [['k1', 2], ['k2', 1]]);
  assert.deepEqual(lines(history.path).map((e) => `${e.key}@${e.seq}`), ['k1@1', 'k2@1', 'k1@2']);
  assert.ok(phases.storeMs > 0 && phases.historyMs > 0, 'the commit and the write are counted in the breakdown');
  group.end(); // an empty group ends without writing anything
  assert.equal(lines(history.path).length, 3);
  history.close();
  store.close();
  other.close();
});

test('a group ends by itself at the end of the event-loop turn it began in, and at maxSize records', async (t) => {
  const dir = tempDir(t);
  const store = openStore(join(dir, 'state.sqlite'), versioned, ORDER);
  const history = new HistoryWriter(join(dir, 'c1.jsonl'));
  const group = new GroupCommit(store, history, emptyPhases(), 2);
  group.apply(at('k1', 1));
  group.record(event('k1', 1));
  assert.equal(lines(history.path).length, 0);
  await tick();
  assert.equal(lines(history.path).length, 1);
  group.apply(at('k1', 2));
  group.record(event('k1', 2));
  group.apply(at('k1', 3));
  group.record(event('k1', 3)); // the second record of this group: maxSize
  assert.equal(lines(history.path).length, 3);
  history.close();
  store.close();
});

test('grouped applies leave every strategy in the state one transaction per message leaves (out of order and duplicates included)', (t) => {
  const dir = tempDir(t);
  const arrivals: [string, number][] = [['a', 1], ['b', 2], ['a', 3], ['a', 2], ['b', 1], ['c', 1], ['a', 3], ['b', 3], ['c', 3], ['c', 2]];
  for (const strategy of [naive, versioned]) {
    const single = openStore(join(dir, `single-${strategy.name}.sqlite`), strategy, ORDER);
    const singleEffects = arrivals.map(([k, s]) => single.apply(at(k, s)));
    const grouped = openStore(join(dir, `grouped-${strategy.name}.sqlite`), strategy, ORDER);
    const history = new HistoryWriter(join(dir, `${strategy.name}.jsonl`));
    const group = new GroupCommit(grouped, history, emptyPhases(), 4);
    const groupedEffects = arrivals.map(([k, s]) => {
      const effect = group.apply(at(k, s));
      group.record(event(k, s));
      return effect;
    });
    group.end();
    assert.deepEqual(groupedEffects, singleEffects, strategy.name);
    assert.deepEqual(grouped.finalStates(), single.finalStates(), strategy.name);
    history.close();
    single.close();
    grouped.close();
  }
});
