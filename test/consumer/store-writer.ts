/**
 * A child process for store.test.ts: at `startAt` (ms), opens the store and applies versions 1..versions of keys k0..k(keys-1), in an
 * order shuffled by its own seed, under both strategies, to the shared store file; reports its
 * effect counts and its start and end times (ms) on stdout as JSON.
 */
import { openStore } from '../../harness/consumer/store.ts';
import { Rng } from '../../harness/workload/rng.ts';

const [file, seed, keys, versions, startAt] = process.argv.slice(2);
// All writers open the store and start at the same instant, so opens race and writes interleave.
const at = Number(startAt ?? 0);
while (Date.now() < at - 30) await new Promise((r) => setTimeout(r, 1));
while (Date.now() < at); // spin the last few ms: a timer would wake the writers apart
const store = openStore(file, { entity: 'wallet', busyTimeoutMs: 60_000 });
const work: [string, number][] = [];
for (let k = 0; k < Number(keys); k++) for (let v = 1; v <= Number(versions); v++) work.push([`k${k}`, v]);
const rng = Rng.from(Number(seed));
for (let i = work.length - 1; i > 0; i--) {
  const j = rng.int(i + 1);
  [work[i], work[j]] = [work[j], work[i]];
}
const began = Date.now();
const effects = { applied: 0, 'skipped-stale': 0 };
for (const [key, v] of work) {
  store.apply('naive', key, v);
  effects[store.apply('versioned', key, v)]++;
}
store.close();
process.stdout.write(JSON.stringify({ ...effects, began, ended: Date.now() }));
