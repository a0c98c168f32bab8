/** YAML with positions (harness/scenario/yaml-source.ts) and located problems. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { locate, parseYamlSource, pathOfProblem, positionOf, splitPath } from '../../harness/scenario/yaml-source.ts';
import { parseScenario, ScenarioError } from '../../harness/scenario/load.ts';
import { options } from './helpers.ts';

const text = `broker:
  kind: kafka
  consumer: { max.poll.interval.ms: 3000 }
workload:
  producers:
    - name: a
    - { name: b, processes: 2 }
  base: &b { kind: fixed, perSecond: 5 }
  rate: *b
`;

test('positions: mapping entries at their key, list items at the item, dotted keys, aliases', () => {
  const { origin, data } = parseYamlSource(text, 'f.yaml');
  assert.equal((data.workload as any).rate.perSecond, 5);
  const at = (p: string) => {
    const x = positionOf(origin, p);
    return `${x.file}:${x.line}:${x.col}`;
  };
  assert.equal(at('broker.kind'), 'f.yaml:2:3');
  assert.equal(at('broker.consumer.max.poll.interval.ms'), 'f.yaml:3:15');
  assert.equal(at('workload.producers[1]'), 'f.yaml:7:7');
  assert.equal(at('workload.producers[1].processes'), 'f.yaml:7:18');
  // A path the file does not have points at the deepest part it has.
  assert.equal(at('workload.producers[0].processes'), 'f.yaml:6:7');
  assert.equal(at('workload.rate.perSecond'), 'f.yaml:8:27');
  assert.equal(at('(top level)'), 'f.yaml:1:1');
});

test('problem lines: the path is found and the position put in front; lines without a path stay', () => {
  assert.deepEqual(splitPath('workload.producers[0].name'), ['workload', 'producers', '0', 'name']);
  assert.equal(pathOfProblem('expect.reorder[1].before: fault "late" starts at 20 s'), 'expect.reorder[1].before');
  assert.equal(pathOfProblem('planned duration 97 s is over'), undefined);
  const { origin } = parseYamlSource(text, 'f.yaml');
  assert.equal(locate(origin, 'broker.kind: nope'), 'f.yaml:2:3: broker.kind: nope');
  assert.equal(locate(origin, 'something else'), 'something else');
  // A broker module's checks across its settings name the field as a sentence's subject.
  assert.equal(pathOfProblem('broker.producer.idempotent allows at most 5 requests in flight'), 'broker.producer.idempotent');
  assert.equal(locate(origin, 'broker.consumer.max.poll.interval.ms is below the session timeout'), 'f.yaml:3:15: broker.consumer.max.poll.interval.ms is below the session timeout');
});

test('checks across fields are said at the field they concern: a producer\'s broker override at its own setting', async () => {
  const { scenarioCatalogue } = await import('../../harness/cli/catalogue.ts');
  const file = `broker: { kind: memory, mode: partitioned, partitions: 2 }
workload:
  keys: { count: 4, distribution: { kind: hotspot, hotKeys: 9, share: 0.5 } }
  rate: { kind: fixed, perSecond: 100 }
  durationMs: 2s
`;
  const catalogue = await scenarioCatalogue();
  const problems = async (text: string) => parseScenario(text, { catalogue, file: 'x.yaml' }).then(() => [] as string[], (e: ScenarioError) => e.detail);
  assert.deepEqual(await problems(file), ['x.yaml:3:52: workload.keys.distribution.hotKeys: expected integer < workload.keys.count (4), got 9']);
  const override = file.replace('hotKeys: 9', 'hotKeys: 1') + '  producers:\n    - { name: p, broker: { partitions: 0 } }\n';
  // Was `x.yaml:7:18: workload.producers[0].broker: broker.partitions: ...` (the override, not its field).
  assert.deepEqual(await problems(override), ['x.yaml:7:28: workload.producers[0].broker.partitions: must be >= 1']);
  // Warnings too: a fault that ends after the drain, at the fault (was `faults: s ends at ...`, no position).
  const late = file.replace('hotKeys: 9', 'hotKeys: 1') + 'consumers: { processes: 1 }\nrun: { drainTimeoutMs: 1s }\nfaults:\n  - { name: s, kind: stall, atMs: 1s, durationMs: 5s, consumer: c1 }\n';
  const { warnings, locatedWarnings } = await parseScenario(late, { catalogue, file: 'x.yaml' });
  assert.equal(locatedWarnings.length, warnings.length);
  assert.ok(locatedWarnings.includes('x.yaml:9:5: faults[0]: s ends at 6 s, after the drain (3 s into the measured phase)'), locatedWarnings.join('\n'));
});

/** Three typos deep in a scenario, each named with its line and column. */
test('a typo deep in a scenario is reported with its line and column', async () => {
  const scenario = `name: deep
broker: { kind: fake }
workload:
  keys:
    count: 20
    distribution: { kind: zipff }
  rate: { kind: fixed, perSecond: 100 }
  durationMs: 5s
consumers:
  processes: 2
  overrides:
    c2:
      handler: { kind: uniform, minMs: 1, maxMs: 5ms, meanMs: 3 }
faults:
  - { name: stall-c1, kind: stall, consumer: c1, atMs: 1s }
  - name: kill-c2
    kind: kill-consumer
    consumer: c2
    atMs: 2s
    restrat: true
`;
  await assert.rejects(parseScenario(scenario, { ...options, file: 'w.yaml' }), (e: ScenarioError) => {
    assert.deepEqual(e.detail, [
      'w.yaml:6:21: workload.keys.distribution.kind: expected one of uniform, zipf, hotspot, single, round-robin; got "zipff"',
      'w.yaml:13:55: consumers.overrides.c2.handler.meanMs: unknown property (did you mean minMs?)',
      'w.yaml:20:5: faults[1].restrat: unknown property (did you mean restart?)',
    ]);
    return true;
  });
});
