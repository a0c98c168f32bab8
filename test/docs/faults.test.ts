/**
 * docs/faults.md's reference of the fault kinds is generated from the kinds' own files and is
 * current; every kind says what it does and every field what it means; each kind's example
 * loads as convoy loads a scenario. And the warning beside add-partitions: consumers that
 * notice a new partition only after the run is over. Cost: about 2 s (the catalogue and the
 * loader, nothing runs).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse, stringify } from 'yaml';
import { faultKinds } from '../../harness/faults/registry.ts';
import { currentFaultsPage, faultReference, undocumentedFields, withFaultReference, BEGIN, END } from '../../harness/schemas/fault-reference.ts';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';
import { parseScenario } from '../../harness/scenario/load.ts';
import { deepMerge } from '../../harness/scenario/deep-merge.ts';

// Loaded once, awaited inside the tests: a file may share its process with others (bin/run-tests.js),
// where tests must be registered before any top-level await.
const loaded = Promise.all([faultKinds(), scenarioCatalogue()]);

test('docs/faults.md has the current fault reference (regenerate: node --import tsx harness/schemas/publish.ts)', async () => {
  const [kinds] = await loaded;
  const { committed, current } = await currentFaultsPage();
  assert.equal(committed, current);
  // A kind whose text changes makes the page stale.
  const changed = new Map(kinds);
  changed.set('stall', { ...kinds.get('stall')!, doc: { ...kinds.get('stall')!.doc, summary: 'Something else.' } });
  assert.notEqual(withFaultReference(committed, faultReference(changed)), committed);
  for (const k of kinds.keys()) assert.ok(committed.includes(`### ${k}\n`), `no section for ${k}`);
  assert.ok(committed.indexOf(BEGIN) < committed.indexOf(END));
});

test('every fault kind says what it does, gives an example, and describes every field', async () => {
  const [kinds] = await loaded;
  assert.ok(kinds.size >= 14);
  for (const [name, k] of kinds) {
    assert.ok(k.doc.summary.length > 20, `${name}: no summary`);
    assert.match(k.doc.example, new RegExp(`^\\{ name: [\\w-]+, kind: ${name}[,}]`), `${name}: example`);
  }
  assert.deepEqual(undocumentedFields(kinds), []);
  // The check finds a field without a description.
  assert.deepEqual(undocumentedFields(new Map([['x', { schema: { type: 'object', properties: { a: { type: 'string' } } } }]])), ['x.a']);
});

/** The smallest scenario an example works in: a memory broker and three consumers, with the kind's own sections. */
function exampleScenario(example: string, exampleIn?: string): string {
  const base = { name: 'fault-example', broker: { kind: 'memory' }, workload: { keys: { count: 4 }, rate: { kind: 'fixed', perSecond: 10 }, durationMs: '20s' }, consumers: { processes: 3 } };
  const own = exampleIn ? (parse(exampleIn) as Record<string, unknown>) : {};
  return stringify({ ...deepMerge(base, own), faults: [parse(example)] });
}

test("each fault kind's example loads as convoy loads a scenario", async () => {
  const [kinds, catalogue] = await loaded;
  const problems: string[] = [];
  for (const [name, k] of kinds) {
    try {
      await parseScenario(exampleScenario(k.doc.example, k.doc.exampleIn), { catalogue, file: `${name}-example.yaml` });
    } catch (e) {
      problems.push(`${name}: ${[(e as Error).message, ...((e as { detail?: string[] }).detail ?? [])].join('; ')}`);
    }
  }
  assert.deepEqual(problems, []);
});

/** A Kafka scenario with a partition increase at 5 s of a 15 s workload. */
const grow = (broker: string, expect = '') => `
name: grow
broker: { kind: kafka, topic: { partitions: 3 }${broker} }
workload: { keys: { count: 20 }, rate: { kind: fixed, perSecond: 50 }, durationMs: 15s }
faults:
  - { name: grow, kind: add-partitions, to: 4, atMs: 5s, durationMs: 8s }
expect: { split: any${expect} }
`;

test('add-partitions on Kafka warns when consumers would notice the new partition only after the run, with the fix', async () => {
  const [, catalogue] = await loaded;
  const load = async (text: string) => (await parseScenario(text, { catalogue, file: 'grow.yaml' })).warnings;
  // The clients' default 5 min: 10 s of sending and the 35 s drain (session timeout 30 s + 5 s) are left (45 s).
  const warned = (await load(grow(''))).filter((w) => w.includes('metadataMaxAgeMs'));
  assert.equal(warned.length, 1, warned.join('\n'));
  assert.match(warned[0], /^faults\[0\]: consumers notice the new partitions only after broker\.consumer\.metadataMaxAgeMs \(300 s\), longer than the 45 s the run has left after the fault: .* set broker\.consumer\.metadataMaxAgeMs below 45 s$/);
  // A refresh within the run, or a scenario that expects messages left unread: no warning.
  assert.deepEqual((await load(grow(', consumer: { metadataMaxAgeMs: 2000 }'))).filter((w) => w.includes('metadataMaxAgeMs')), []);
  assert.deepEqual((await load(grow('', ', unseen: ">0"'))).filter((w) => w.includes('metadataMaxAgeMs')), []);
});
