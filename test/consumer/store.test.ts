import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openStore, compareWithTruth } from '../../harness/consumer/store.ts';
import { entityStateAt, truth } from '../../harness/workload/entity.ts';

function tempStore(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-store-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'state.sqlite');
}

test('out-of-order apply: naive ends wrong, versioned ends right and reports the stale skip', (t) => {
  const store = openStore(tempStore(t), { entity: 'order' });
  const arrivals = [1, 3, 2]; // seq 2 arrives after seq 3
  const effects = arrivals.map((v) => [store.apply('naive', 'k1', v), store.apply('versioned', 'k1', v)]);
  assert.deepEqual(effects, [
    ['applied', 'applied'],
    ['applied', 'applied'],
    ['applied', 'skipped-stale'],
  ]);
  // A duplicate of the newest is not newer either.
  assert.equal(store.apply('versioned', 'k1', 3), 'skipped-stale');
  const expected = truth('order', [1, 2, 3].map((seq) => ({ key: 'k1', seq, ok: true })));
  const naive = compareWithTruth(store.finalStates('naive'), expected);
  const versioned = compareWithTruth(store.finalStates('versioned'), expected);
  assert.deepEqual(naive, {
    keys: 1,
    right: 0,
    wrong: 1,
    wrongKeys: [{ key: 'k1', expected: { version: 3, state: entityStateAt('order', 'k1', 3) }, actual: { version: 2, state: entityStateAt('order', 'k1', 2) } }],
    unreachable: 0,
  });
  assert.deepEqual(versioned, { keys: 1, right: 1, wrong: 0, wrongKeys: [], unreachable: 0 });
  store.close();
});

test('applyAll gives each strategy the effects and final states of apply() per strategy', (t) => {
  const one = openStore(tempStore(t), { entity: 'order' });
  const all = openStore(tempStore(t), { entity: 'order' });
  // Out of order, a duplicate of the newest, an old redelivery, and a second key.
  const arrivals: [string, number][] = [['k1', 1], ['k1', 3], ['k1', 2], ['k1', 3], ['k2', 2], ['k1', 1], ['k2', 1], ['k1', 4]];
  for (const [key, v] of arrivals) {
    const expected = { naive: one.apply('naive', key, v), versioned: one.apply('versioned', key, v) };
    assert.deepEqual(all.applyAll(key, v), expected, `${key}@${v}`);
  }
  for (const s of ['naive', 'versioned'] as const) assert.deepEqual([...all.finalStates(s)], [...one.finalStates(s)], s);
  assert.equal(all.finalStates('naive').get('k2')?.version, 1);
  assert.equal(all.finalStates('versioned').get('k2')?.version, 2);
  one.close();
  all.close();
});

test('compareWithTruth: missing keys are wrong, unreachable keys are counted apart, examples sorted', () => {
  const s = (version: number) => ({ version, state: { count: version } });
  const truthMap = new Map([['k1', s(2)], ['k2', s(5)], ['k10', s(1)], ['k3', s(4)]]);
  const final = new Map([['k1', s(2)], ['k2', s(4)], ['k3', s(3)], ['k9', s(1)]]);
  const r = compareWithTruth(final, truthMap, ['k3']);
  assert.equal(r.keys, 4); // k1, k2, k10, k9
  assert.equal(r.right, 1);
  assert.equal(r.wrong, 3);
  assert.equal(r.unreachable, 1);
  assert.deepEqual(r.wrongKeys.map((w) => w.key), ['k2', 'k9', 'k10']);
  assert.equal(r.wrongKeys[1].expected, null);
  assert.equal(r.wrongKeys[2].actual, null);
});

test('the store reopens with what was written; explicit states are kept', (t) => {
  const file = tempStore(t);
  const a = openStore(file, { entity: 'counter' });
  a.apply('versioned', 'x', 4, 'p', { custom: 'state' });
  a.close();
  const b = openStore(file);
  assert.deepEqual(b.finalStates('versioned').get('x'), { version: 4, state: { custom: 'state' } });
  assert.equal(b.finalStates('naive').size, 0);
  b.close();
});

function runWriter(file: string, seed: number, keys: number, versions: number, startAt: number): Promise<Record<string, number>> {
  const script = fileURLToPath(new URL('./store-writer.ts', import.meta.url));
  return new Promise((resolve, reject) => {
    const child = fork(script, [file, String(seed), String(keys), String(versions), String(startAt)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Record<string, number>) : reject(new Error(`writer exited ${code}: ${err}`))));
  });
}

test('two OS processes racing on one store: no busy errors; versioned ends right, naive does not', async (t) => {
  const file = tempStore(t);
  openStore(file).close(); // create the tables once, as the runner would
  const keys = 300;
  const versions = 20;
  const startAt = Date.now() + 2000;
  const [a, b] = await Promise.all([runWriter(file, 1, keys, versions, startAt), runWriter(file, 2, keys, versions, startAt)]);
  process.stdout.write(`# writers ran ${a.began}..${a.ended} and ${b.began}..${b.ended}\n`);
  assert.ok(a.began < b.ended && b.began < a.ended, 'the two writers overlapped in time');
  const total = keys * versions;
  assert.equal(a.applied + a['skipped-stale'], total);
  assert.equal(b.applied + b['skipped-stale'], total);
  const store = openStore(file, { entity: 'wallet' });
  const messages = [];
  for (let k = 0; k < keys; k++) for (let v = 1; v <= versions; v++) messages.push({ key: `k${k}`, seq: v, ok: true });
  const expected = truth('wallet', messages);
  const versioned = compareWithTruth(store.finalStates('versioned'), expected);
  const naive = compareWithTruth(store.finalStates('naive'), expected);
  store.close();
  assert.equal(versioned.wrong, 0, JSON.stringify(versioned.wrongKeys[0]));
  assert.equal(versioned.keys, keys);
  assert.ok(naive.wrong > keys / 2, `naive wrong on ${naive.wrong} of ${keys} keys`);
});

// Regression: a run's consumers opened a new store file at the same moment and one of them
// failed at start-up with "database is locked" (SQLite refuses a racing switch to WAL without
// waiting). The store now retries that switch; the runner also creates the file first.
test('processes opening a new store file at the same instant all get in', async (t) => {
  for (let round = 0; round < 6; round++) {
    const file = tempStore(t);
    const startAt = Date.now() + 1500;
    const writers = await Promise.all([1, 2, 3, 4, 5].map((seed) => runWriter(file, seed, 2, 2, startAt)));
    for (const w of writers) assert.equal(w.applied + w['skipped-stale'], 4);
  }
});
