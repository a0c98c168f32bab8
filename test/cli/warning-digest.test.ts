/** Commands that load many scenarios print a warning that repeats itself once, and count the rest. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { warningDigest } from '../../harness/cli/warning-digest.ts';

const drain = (file: string, s: number) =>
  `${file}: run.drainTimeoutMs 30 s is shorter than the broker's redelivery horizon plus margin (${s} s): a message on its way back when the drain stops is reported unseen and the verdict may be unknown`;

test('the first drain-cap warning is printed, the others counted; other warnings are all printed', () => {
  const printed: string[] = [];
  const d = warningDigest((l) => printed.push(l));
  d.warn(drain('a.yaml', 305));
  d.warn('b.yaml: run.maxDurationMs 200 s is over the nightly budget of 90 s');
  d.warn(drain('c.yaml', 35));
  d.warn(drain('d.yaml', 305));
  assert.deepEqual(printed, [drain('a.yaml', 305), 'b.yaml: run.maxDurationMs 200 s is over the nightly budget of 90 s']);
  assert.equal(d.summary('convoy validate workloads/nightly'), "2 more scenarios cap their drain under the broker's redelivery horizon (`convoy validate workloads/nightly` lists them)");
});

test('no summary when nothing was held back', () => {
  const d = warningDigest(() => {});
  assert.equal(d.summary('x'), null);
  d.warn(drain('a.yaml', 305));
  assert.equal(d.summary('x'), null);
  d.warn(drain('b.yaml', 305));
  assert.match(d.summary('x')!, /^1 more scenario caps its drain/);
});
