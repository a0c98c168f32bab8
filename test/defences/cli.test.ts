/**
 * `convoy defences` end to end through the CLI on the memory broker (a test double inside the
 * runner): a one-column suite, whose rows are discovered from the strategy catalogue (a
 * strategy from a fixture folder joins with no edit), each run live; the data file names runs,
 * seeds and commit; the doc is rendered from it alone; bad input exits 2 before any run.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { convoy } from '../runner/helpers.ts';
import type { DefencesData } from '../../harness/defences/table.ts';
import { CONCURRENCY_MODES } from '../../harness/consumer/concurrency/registry.ts';

/** The concurrency modes that declare themselves a defence: rows found in their folder, not listed. */
const DEFENCE_MODES = CONCURRENCY_MODES.filter((m) => m.defence).map((m) => m.name);

const FIXTURE_STRATEGIES = fileURLToPath(new URL('../consumer/fixture-strategies/', import.meta.url));

const COLUMN = `name: tiny-hot-keys
description: Five hot counters on the memory broker, two consumers.
broker: { kind: memory, mode: partitioned, partitions: 2 }
workload:
  entity: { kind: counter }
  keys: { count: 5 }
  rate: { kind: fixed, perSecond: 200 }
  durationMs: 1s
  warmupMs: 300ms
consumers: { processes: 2, handler: { kind: constant, ms: 0 } }
expect: { wrong-state: any }
`;

/** A temporary folder with a one-column suite (COLUMN) and a docs folder, removed after the test. */
function tinySuite(t: TestContext, prefix: string) {
  const root = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const suite = join(root, 'suite');
  mkdirSync(suite);
  writeFileSync(join(suite, 'tiny.yaml'), COLUMN);
  return { root, suite, docs: join(root, 'docs') };
}

test('convoy defences runs every fitting strategy live per column, fixture strategies included, and renders the doc from its data', async (t) => {
  const { root, suite, docs } = tinySuite(t, 'convoy-defences-');
  const env = { CONVOY_STRATEGY_DIRS: FIXTURE_STRATEGIES };
  const r = await convoy(['defences', '--suite', suite, '--docs', docs, '--results', join(root, 'results'), '--quiet'], { env, timeoutMs: 300_000 });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const data = JSON.parse(readFileSync(join(docs, 'defences.json'), 'utf8')) as DefencesData;
  assert.equal(data.schema, 'convoy.defences.v1');
  assert.match(data.commit, /^[0-9a-f]{7,}(\+dirty)?$|^unknown$/);
  assert.ok(data.rows.includes('last-writer'), 'the fixture strategy is a row');
  assert.ok(DEFENCE_MODES.length >= 2, 'conflate and batch declare a defence');
  assert.deepEqual(data.rows.slice(-DEFENCE_MODES.length), DEFENCE_MODES, 'the defence modes are rows, after the strategies');
  assert.deepEqual(Object.keys(data.modes ?? {}), DEFENCE_MODES);
  assert.deepEqual(Object.keys(data.figures), ['ties', 'conflated', 'messages per transaction']);
  const cells = new Map(data.cells.map((c) => [c.strategy, c]));
  // Counters have no status and whole-state events: the state machine and commutative ones do not fit.
  assert.equal(cells.get('state-machine')?.fits, false);
  assert.match(cells.get('commutative')!.unfit!, /deltas/);
  for (const name of ['naive', 'versioned', 'lww-timestamp', 'last-writer']) {
    const c = cells.get(name)!;
    assert.equal(c.fits, true, name);
    assert.equal(c.runs.length, 1, name);
    assert.equal(c.known, 1, `${name}: ${JSON.stringify(c.runs)}`);
    assert.ok(Number.isInteger(c.runs[0].seed), name);
    assert.equal(c.keys?.median, 5, name);
    assert.ok((c.cost.writesPerMessage?.median ?? 0) > 0, `${name} wrote to the store`);
    assert.ok(c.cost.storeMsPerMessage !== null && c.cost.messagesPerSecond !== null, name);
  }
  assert.ok(cells.get('lww-timestamp')!.figures.ties !== null, "lww-timestamp's own count is in its cell");
  assert.equal(cells.get('naive')!.figures.ties, null, 'a figure a strategy does not keep stays empty');
  assert.equal(cells.get('naive')!.figures['messages per transaction'], null, 'a strategy row has no mode figures');
  for (const mode of DEFENCE_MODES) {
    // Each mode ran as the consumers' mode (its figures come from a run whose consumers.mode is the row), judged by the column's strategy.
    const c = cells.get(mode)!;
    assert.equal(c.fits, true, mode);
    assert.equal(c.known, 1, `${mode}: ${JSON.stringify(c.runs)}`);
    assert.equal(c.keys?.median, 5, mode);
    assert.ok(c.figures['messages per transaction'] !== null && c.figures.conflated !== null, `${mode} ran as the consumers' mode`);
  }
  // The live strategy of each run is the row's (not a replay).
  const md = readFileSync(join(docs, 'defences.md'), 'utf8');
  assert.match(md, /\| defence \| tiny-hot-keys \|/);
  assert.match(md, /\| last-writer \| /);
  for (const mode of DEFENCE_MODES) {
    assert.match(md, new RegExp(`\\| ${mode} \\| \\d`), `${mode} has a row`);
    assert.match(md, new RegExp(`- \\*\\*${mode}\\*\\* \\(concurrency mode\\): `), `${mode}'s defence line`);
  }
  assert.match(md, /\| defence \| store ms per message \| messages\/s handled \| store writes per message \| held messages per run \| peak consumer memory \(MiB\) \| owner reads per message \| added latency p99 \(ms\) \| ties per run \| conflated per run \| messages per transaction per run \|/);
  // The cost columns from each run's strategy costs: memory for every row, holding and owner reads only where the strategy does them.
  for (const name of ['naive', 'versioned']) {
    const c = cells.get(name)!.cost;
    assert.ok((c.peakRssMiB?.median ?? 0) > 10, `${name}: a consumer's peak memory (${JSON.stringify(c.peakRssMiB)})`);
    assert.equal(c.heldMessages?.median, 0, `${name} holds nothing`);
    assert.equal(c.readsPerMessage?.median, 0, `${name} reads no owner`);
    assert.equal(c.addedLatencyP99Ms, null, `${name} adds no holding latency`);
  }
  const notification = cells.get('notification')!;
  assert.equal(notification.fits, true);
  assert.ok((notification.cost.readsPerMessage?.median ?? 0) >= 0.5, `notification reads its owner (${JSON.stringify(notification.cost.readsPerMessage)})`);
  assert.ok(r.stdout.includes(md), 'the doc is what the command printed');
  // Rendered again from the data file alone: the same doc.
  rmSync(join(docs, 'defences.md'));
  const again = await convoy(['defences', '--render', '--docs', docs], { env });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(readFileSync(join(docs, 'defences.md'), 'utf8'), md);
});

test('convoy defences --rows runs only the named rows and leaves the docs alone', async (t) => {
  const { root, suite, docs } = tinySuite(t, 'convoy-defences-rows-');
  const mode = DEFENCE_MODES[0]!;
  const r = await convoy(['defences', '--suite', suite, '--docs', docs, '--results', join(root, 'results'), '--rows', mode, '--quiet'], { timeoutMs: 120_000 });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(existsSync(join(docs, 'defences.json')), false, '--docs left alone');
  const file = r.stdout.trim().split('\n').find((l) => l.endsWith('defences.json'))!;
  const data = JSON.parse(readFileSync(file, 'utf8')) as DefencesData;
  assert.deepEqual(data.rows, [mode]);
  assert.deepEqual(data.cells.map((c) => [c.strategy, c.known]), [[mode, 1]]);
  assert.match(r.stdout, new RegExp(`\\| ${mode} \\| `));
  const bad = await convoy(['defences', '--suite', suite, '--docs', docs, '--rows', 'nosuch']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--rows: no strategy or defence mode named nosuch/);
});

test('convoy defences refuses bad input with exit 2 before any run', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'convoy-defences-bad-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const zero = await convoy(['defences', '--repeat', '0', '--suite', root]);
  assert.equal(zero.code, 2);
  assert.match(zero.stderr, /--repeat: expected an integer >= 1, got "0"/);
  const empty = await convoy(['defences', '--suite', root, '--docs', root]);
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /no scenario files \(\.yaml\)/);
});
