/**
 * Golden histories with hand-computed expectations (test/checker/golden/<name>.jsonl and
 * <name>.json). Each table lists the non-zero anomaly counts (all others must be 0), the
 * examples in their deterministic order (fields given must match), the verdict under the
 * default expectations (or the given `expect`), and optionally scoped expectations and the
 * fault windows. The oracle must agree with every table too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkFile } from '../../harness/checker/readFile.ts';
import { evaluateExpectations, parseExpectSpec } from '../../harness/checker/expectations.ts';
import { ANOMALY_TYPES } from '../../harness/checker/types.ts';
import { oracle, tally } from './oracle.ts';

const DIR = new URL('./golden/', import.meta.url).pathname;

interface Golden {
  description: string;
  expect?: string;
  anomalies: Record<string, { count: number; keys: number }>;
  examples: Record<string, Record<string, unknown>[]>;
  verdict: 'pass' | 'fail' | 'unknown';
  expectations?: Record<string, unknown>[];
  faults?: Record<string, unknown>[];
}

/** Every field of `want` matches `got` (recursively); other fields of `got` are free. */
function assertPartial(got: unknown, want: unknown, path: string): void {
  if (want !== null && typeof want === 'object' && !Array.isArray(want)) {
    assert.ok(got !== null && typeof got === 'object', `${path}: expected an object, got ${JSON.stringify(got)}`);
    for (const [k, v] of Object.entries(want)) assertPartial((got as Record<string, unknown>)[k], v, `${path}.${k}`);
  } else if (Array.isArray(want)) {
    assert.ok(Array.isArray(got), `${path}: expected an array`);
    assert.equal(got.length, want.length, `${path}: length`);
    want.forEach((w, i) => assertPartial(got[i], w, `${path}[${i}]`));
  } else {
    assert.deepEqual(got, want, path);
  }
}

const names = readdirSync(DIR)
  .filter((f) => f.endsWith('.jsonl'))
  .map((f) => f.slice(0, -'.jsonl'.length))
  .sort();

test('there is a golden history for every anomaly type and the listed cases', () => {
  for (const t of ANOMALY_TYPES) assert.ok(names.includes(t), `missing golden ${t}`);
  for (const n of ['ties', 'missing-end', 'multiple-acks', 'phantom-duplicates', 'resends', 'clean-interleaved']) assert.ok(names.includes(n), n);
});

for (const name of names) {
  test(`golden: ${name}`, async () => {
    const want = JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as Golden;
    const file = join(DIR, `${name}.jsonl`);
    const outcome = await checkFile(file);

    for (const t of ANOMALY_TYPES) {
      const expected = want.anomalies[t] ?? { count: 0, keys: 0 };
      const got = outcome.anomalies[t];
      assert.deepEqual({ count: got.count, keys: got.keys }, expected, `${name}: ${t}`);
    }
    for (const [t, list] of Object.entries(want.examples)) {
      assertPartial(outcome.anomalies[t as (typeof ANOMALY_TYPES)[number]].examples, list, `${name}.examples.${t}`);
    }

    const { expectations, verdict } = evaluateExpectations(outcome, want.expect ? parseExpectSpec(want.expect) : []);
    assert.equal(verdict.status, want.verdict, `${name}: verdict (${verdict.reasons.join('; ')})`);
    for (const w of want.expectations ?? []) {
      const got = expectations.find((e) => e.type === w.type && JSON.stringify(e.window) === JSON.stringify(w.window));
      assert.ok(got, `${name}: expectation ${JSON.stringify(w)} missing`);
      assertPartial(got, w, `${name}.expectations`);
    }
    if (want.faults) assert.deepEqual(outcome.faults, want.faults);

    // The oracle, computed independently, must agree with the hand-computed table.
    const events = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const o = oracle(events);
    for (const t of ANOMALY_TYPES) assert.deepEqual(tally(o.items[t]), want.anomalies[t] ?? { count: 0, keys: 0 }, `${name}: oracle ${t}`);
  });
}
