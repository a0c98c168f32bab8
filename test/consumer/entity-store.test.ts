import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openStore, compareWithTruth } from '../../harness/consumer/entity-store.ts';
import { entityStateAt, truth } from '../../harness/workload/entity.ts';
import naive from '../../harness/consumer/strategies/naive.ts';
import versioned from '../../harness/consumer/strategies/versioned.ts';

const ORDER = { kind: 'order', events: 'state', cancelShare: 0 } as const;
const WALLET = { kind: 'wallet', events: 'state', cancelShare: 0 } as const;
const at = (key: string, seq: number) => ({ key, seq, producer: 'p' });

function tempStore(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-store-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'state.sqlite');
}

test('out-of-order apply: naive ends wrong, versioned ends right and reports the stale skip', (t) => {
  const file = tempStore(t);
  const n = openStore(file, naive, ORDER);
  const v = openStore(file, versioned, ORDER);
  const arrivals = [1, 3, 2]; // seq 2 arrives after seq 3
  const effects = arrivals.map((s) => [n.applyNow(at('k1', s)), v.applyNow(at('k1', s))]);
  assert.deepEqual(effects, [
    ['applied', 'applied'],
    ['applied', 'applied'],
    ['applied', 'skipped'],
  ]);
  // A duplicate of the newest is not newer either.
  assert.equal(v.applyNow(at('k1', 3)), 'skipped');
  const expected = truth('order', [1, 2, 3].map((seq) => ({ key: 'k1', seq, ok: true })));
  const naiveScore = compareWithTruth(n.finalStates(), expected);
  const versionedScore = compareWithTruth(v.finalStates(), expected);
  assert.deepEqual(naiveScore, {
    keys: 1,
    right: 0,
    wrong: 1,
    wrongKeys: [
      { key: 'k1', expected: { version: 3, state: entityStateAt('order', 'k1', 3) }, actual: { version: 2, state: entityStateAt('order', 'k1', 2) }, fields: ['version', 'status'] },
    ],
    wrongFields: { version: 1, status: 1 },
    unreachable: 0,
  });
  assert.deepEqual(versionedScore, { keys: 1, right: 1, wrong: 0, wrongKeys: [], wrongFields: {}, unreachable: 0 });
  n.close();
  v.close();
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
  assert.deepEqual(r.wrongKeys[0].fields, ['version', 'count']);
  // Without the version, a state equal field for field is right.
  const unversioned = compareWithTruth(new Map([['k1', { version: 9, state: { count: 2 } }]]), new Map([['k1', s(2)]]), [], 10, false);
  assert.equal(unversioned.wrong, 0);
});

test('the store reopens with what was written', (t) => {
  const file = tempStore(t);
  const a = openStore(file, versioned, { kind: 'counter', events: 'state', cancelShare: 0 });
  a.applyNow(at('x', 4));
  a.close();
  const b = openStore(file, versioned, { kind: 'counter', events: 'state', cancelShare: 0 });
  assert.deepEqual(b.finalStates().get('x'), { version: 4, state: { count: 4 } });
  b.close();
  const c = openStore(file, naive, { kind: 'counter', events: 'state', cancelShare: 0 });
  assert.equal(c.finalStates().size, 0, 'each strategy keeps its own table');
  c.close();
});

function runWriter(file: string, seed: number, keys: number, versions: number, startAt: number): Promise<Record<string, number>> {
  const script = fileURLToPath(new URL('./entity-store-writer.mjs', import.meta.url));
  const execArgv = process.env.CONVOY_COMPILED_TREE ? [] : ['--import', 'tsx/esm'];
  return new Promise((resolve, reject) => {
    const child = fork(script, [file, String(seed), String(keys), String(versions), String(startAt)], { execArgv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Record<string, number>) : reject(new Error(`writer exited ${code}: ${err}`))));
  });
}

test('two OS processes racing on one store: no busy errors; versioned ends right, naive does not', async (t) => {
  const file = tempStore(t);
  openStore(file, versioned, WALLET).close(); // create the tables once, as the runner would
  openStore(file, naive, WALLET).close();
  const keys = 300;
  const versions = 20;
  const startAt = Date.now() + 2000;
  const [a, b] = await Promise.all([runWriter(file, 1, keys, versions, startAt), runWriter(file, 2, keys, versions, startAt)]);
  process.stdout.write(`# writers ran ${a.began}..${a.ended} and ${b.began}..${b.ended}\n`);
  assert.ok(a.began < b.ended && b.began < a.ended, 'the two writers overlapped in time');
  const total = keys * versions;
  assert.equal(a.applied + a.skipped, total);
  assert.equal(b.applied + b.skipped, total);
  const v = openStore(file, versioned, WALLET);
  const n = openStore(file, naive, WALLET);
  const messages = [];
  for (let k = 0; k < keys; k++) for (let v = 1; v <= versions; v++) messages.push({ key: `k${k}`, seq: v, ok: true });
  const expected = truth('wallet', messages);
  const versionedScore = compareWithTruth(v.finalStates(), expected);
  const naiveScore = compareWithTruth(n.finalStates(), expected);
  v.close();
  n.close();
  assert.equal(versionedScore.wrong, 0, JSON.stringify(versionedScore.wrongKeys[0]));
  assert.equal(versionedScore.keys, keys);
  assert.ok(naiveScore.wrong > keys / 2, `naive wrong on ${naiveScore.wrong} of ${keys} keys`);
});

// Regression: a run's consumers opened a new store file at the same moment and one of them
// failed at start-up with "database is locked" (SQLite refuses a racing switch to WAL without
// waiting). The store now retries that switch; the runner also creates the file first.
test('processes opening a new store file at the same instant all get in', async (t) => {
  for (let round = 0; round < 6; round++) {
    const file = tempStore(t);
    const startAt = Date.now() + 1500;
    const writers = await Promise.all([1, 2, 3, 4, 5].map((seed) => runWriter(file, seed, 2, 2, startAt)));
    for (const w of writers) assert.equal(w.applied + w.skipped, 4);
  }
});
