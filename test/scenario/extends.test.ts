/** `extends:`: a twin states only what differs; the merge rules of harness/scenario/extends.ts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadScenario, ScenarioError } from '../../harness/scenario/load.ts';
import { mergeScenarioData, resolveExtends } from '../../harness/scenario/extends.ts';
import { InputError } from '../../harness/errors.ts';
import { fixture, options } from './helpers.ts';

const x = (name: string) => fixture(`extends/${name}.yaml`);

test('a child resolves to its parent with its differences merged by the documented rules', async () => {
  const [{ scenario: child }, { scenario: parent }] = await Promise.all([loadScenario(x('child'), options), loadScenario(x('parent'), options)]);
  assert.equal(child.name, 'child');
  // Rule 1: mappings merge (partitions kept from the parent, keys.count too).
  assert.deepEqual(child.broker, parent.broker);
  assert.equal(child.workload.keys.count, 20);
  // Rule 3: another kind replaces the mapping whole (no zipf `s` left behind).
  assert.deepEqual(child.workload.keys.distribution, { kind: 'uniform' });
  // Rule 5: producers by name: payments merged in place, refunds appended.
  assert.deepEqual(child.workload.producers.map((p) => [p.name, p.processes]), [['orders', 2], ['payments', 3], ['refunds', 1]]);
  // Rule 5: faults by name: merged in place, removed with remove: true.
  assert.deepEqual(child.faults, [{ name: 'stall-c1', kind: 'stall', consumer: 'c1', atMs: 1000, durationMs: 1000 }]);
  // Rule 4: an expectation replaces the parent's whole (no `during` kept); rule 2: null removes (the default again).
  assert.equal(child.expect.reorder, '0');
  assert.equal(child.expect.duplicate, 'any');
  assert.equal(parent.expect.duplicate, '0');
  assert.equal(child.consumers.strategy, 'versioned');
  assert.equal(child.consumers.processes, 2);
});

test('the files a scenario came from are recorded, the file itself first', async () => {
  const { files } = await loadScenario(x('child'), options);
  assert.deepEqual(files.map((f) => f.path.replace(/.*\//, '')), ['child.yaml', 'parent.yaml']);
  assert.match(files[1].text, /name: parent/);
});

test('a problem inherited from the parent is reported at its line in the parent', async () => {
  await assert.rejects(loadScenario(x('fixes-nothing'), options), (e: ScenarioError) => {
    assert.deepEqual(e.detail, [`${x('typo-in-parent')}:8:18: consumers.concurrency.mode: expected one of partition, batch, conflate, key, unordered; got "keyed"`]);
    return true;
  });
});

test('a parent that cannot be read, or a loop, is one located problem', async () => {
  await assert.rejects(loadScenario(x('missing-parent'), options), (e: InputError) => {
    assert.equal(e.detail.length, 1);
    assert.match(e.detail[0], /missing-parent\.yaml:2:1: extends: cannot read .*no-such-parent\.yaml: /);
    return true;
  });
  await assert.rejects(loadScenario(x('loop-a'), options), (e: InputError) => {
    assert.match(e.detail[0], /loop-b\.yaml:1:1: extends: .*loop-a\.yaml → .*loop-b\.yaml → .*loop-a\.yaml: a file extends itself/);
    return true;
  });
});

test('mergeScenarioData: lists other than named ones replace; unnamed list items append', () => {
  assert.deepEqual(mergeScenarioData({ workload: { size: { kind: 'choice', bytes: [1, 2] } } }, { workload: { size: { bytes: [3] } } }), {
    workload: { size: { kind: 'choice', bytes: [3] } },
  });
  assert.deepEqual(mergeScenarioData({ faults: [{ name: 'a', kind: 'stall', atMs: 1 }] }, { faults: [{ name: 'a', kind: 'freeze' }] }), {
    faults: [{ name: 'a', kind: 'freeze' }],
  });
});

test('resolveExtends reads parents through the given reader, relative to the child', async () => {
  const files: Record<string, string> = { 'dir/base.yaml': 'seed: 3\nbroker: { kind: fake }\n' };
  const r = await resolveExtends('extends: base.yaml\nseed: 4\n', 'dir/child.yaml', async (p) => {
    if (!(p in files)) throw new Error('ENOENT');
    return files[p];
  });
  assert.deepEqual(r.data, { seed: 4, broker: { kind: 'fake' } });
});
