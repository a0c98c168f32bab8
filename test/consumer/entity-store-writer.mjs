/**
 * A child process for store.test.ts: at `startAt` (ms), opens the store and applies versions 1..versions of keys k0..k(keys-1), in an
 * order shuffled by its own seed, under the naive and versioned strategies, to the shared store
 * file; reports versioned's effect counts and its start and end times (ms) on stdout as JSON.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// Plain JavaScript, so it starts without tsx when the test run hands it the compiled tree
// (bin/run-tests.js): the test starts 30 of these. Without one, store.test.ts adds tsx.
const tree = process.env.CONVOY_COMPILED_TREE;
const load = (rel) => import(tree ? pathToFileURL(join(tree, `${rel}.js`)).href : new URL(`../../${rel}.ts`, import.meta.url).href);
const { openStore } = await load('harness/consumer/entity-store');
const { Rng } = await load('harness/workload/rng');
const naive = (await load('harness/consumer/strategies/naive')).default;
const versioned = (await load('harness/consumer/strategies/versioned')).default;

const [file, seed, keys, versions, startAt] = process.argv.slice(2);
const entity = { kind: 'wallet', events: 'state', cancelShare: 0 };
// All writers open the store and start at the same instant, so opens race and writes interleave.
const at = Number(startAt ?? 0);
while (Date.now() < at - 30) await new Promise((r) => setTimeout(r, 1));
while (Date.now() < at); // spin the last few ms: a timer would wake the writers apart
const v = openStore(file, versioned, entity, undefined, { busyTimeoutMs: 60_000 });
const n = openStore(file, naive, entity, undefined, { busyTimeoutMs: 60_000 });
const work = [];
for (let k = 0; k < Number(keys); k++) for (let s = 1; s <= Number(versions); s++) work.push([`k${k}`, s]);
const rng = Rng.from(Number(seed));
for (let i = work.length - 1; i > 0; i--) {
  const j = rng.int(i + 1);
  [work[i], work[j]] = [work[j], work[i]];
}
const began = Date.now();
const effects = { applied: 0, skipped: 0, rejected: 0 };
for (const [key, s] of work) {
  n.applyNow({ key, seq: s, producer: 'p' });
  effects[v.applyNow({ key, seq: s, producer: 'p' })]++;
}
v.close();
n.close();
process.stdout.write(JSON.stringify({ ...effects, began, ended: Date.now() }));
