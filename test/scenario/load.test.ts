import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadScenario, parseScenario, ScenarioError } from '../../harness/scenario/load.ts';
import { parseDuration } from '../../harness/scenario/defaults.ts';
import { suggest } from '../../harness/scenario/wording.ts';
import { plannedSendingMs } from '../../harness/scenario/suite-rules.ts';
import { ANOMALIES, ANOMALY_TYPES } from '../../harness/checker/anomaly-types.ts';
import { durationSchema } from '../../harness/spec/sections.ts';
import { InputError } from '../../harness/errors.ts';
import type { Scenario } from '../../harness/spec/types.ts';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';
import { catalogue, faultKinds, fakeBroker, fixture, options } from './helpers.ts';

/** The problems a scenario text has ([] when it loads), without their file:line:col (tested in locations.test.ts). */
async function problems(yaml: string, opts = options): Promise<string[]> {
  try {
    await parseScenario(yaml, { ...opts, file: 't.yaml' });
    return [];
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    return err instanceof ScenarioError ? err.errors : err.detail;
  }
}

async function fileProblems(name: string): Promise<string[]> {
  try {
    await loadScenario(fixture(name), options);
    return [];
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    return err instanceof ScenarioError ? err.errors : err.detail;
  }
}

const ok = 'broker: { kind: fake }\nworkload:\n  rate: { kind: fixed, perSecond: 100 }\n  durationMs: 5s\n';

test('a typo in an enum names the path, the choices and what was written', async () => {
  assert.deepEqual(await fileProblems('typo-distribution.yaml'), [
    'workload.keys.distribution.kind: expected one of uniform, zipf, hotspot, single, round-robin; got "zipff"',
  ]);
});

test('a wrong type names the path and what was expected', async () => {
  assert.deepEqual(await fileProblems('wrong-type.yaml'), ['consumers.processes: expected integer ≥ 1, got "two"']);
});

test('an unknown property suggests the closest known one (and does not also report it missing)', async () => {
  assert.deepEqual(await fileProblems('unknown-property.yaml'), ['workload.rate.perSecnd: unknown property (did you mean perSecond?)']);
  assert.deepEqual(await problems(ok + 'consumer:\n  processes: 2\n'), ['consumer: unknown property (did you mean consumers?)']);
  assert.deepEqual(await problems(ok + 'banana: 1\n'), [
    'banana: unknown property; expected one of extends, name, description, seed, broker, workload, consumers, faults, expect, run, placement',
  ]);
  assert.equal(suggest('perSecnd', ['perSecond', 'steps']), 'perSecond');
  assert.equal(suggest('xyz', ['perSecond']), undefined);
});

test('every problem at once, each with its path', async () => {
  const p = await problems(`
broker: { kind: fake, partitons: 3 }
seed: -1
workload:
  keys: { count: 0, distribution: { kind: hotspot } }
  rate: { kind: steps, steps: [] }
  durationMs: 5x
  producers: [{ name: "a b" }]
consumers:
  handler: { kind: constant, ms: true }
  concurrency: { mode: keyed }
  overrides: { consumer1: {} }
run: { drainTimeout: 3 }
`);
  assert.deepEqual(p, [
    'seed: expected integer ≥ 0 and ≤ 9007199254740991, got -1',
    'workload.keys.count: expected integer ≥ 1 and ≤ 10000000, got 0',
    'workload.keys.distribution.share: missing; expected number between 0 and 1',
    'workload.rate.steps: expected at least 1 item, got 0',
    'workload.durationMs: expected a duration (milliseconds, or a string like "30s", "250ms", "2m"), got "5x"',
    'workload.producers[0].name: expected a name (letters, digits, ".", "_", "-"; starting with a letter or digit), got "a b"',
    'consumers.handler.ms: expected a duration (milliseconds, or a string like "30s", "250ms", "2m"), got true',
    'consumers.concurrency.mode: expected one of partition, batch, conflate, key, unordered; got "keyed"',
    'consumers.overrides.consumer1: unexpected name; expected a consumer name: c1, c2, ...',
    'run.drainTimeout: unknown property (did you mean drainTimeoutMs?)',
    'broker.partitons: unknown property (did you mean partitions?)',
  ]);
});

test('a missing discriminator and a missing section say what is expected', async () => {
  assert.deepEqual(await problems('broker: { kind: fake }\nworkload:\n  rate: { perSecond: 3 }\n  durationMs: 1s\n'), [
    'workload.rate.kind: missing; expected one of fixed, steps, unlimited',
  ]);
  assert.deepEqual(await problems('broker: { kind: fake }\n'), ['workload: missing; expected a mapping']);
});

test('YAML syntax errors carry line and column', async () => {
  const p = await fileProblems('bad-yaml.yaml');
  assert.equal(p.length, 1);
  assert.match(p[0], /bad-yaml\.yaml:4:3: YAML syntax error: /);
  const dup = await problems('broker: { kind: fake }\nbroker: { kind: fake }\n');
  assert.match(dup[0], /^t\.yaml:2:1: YAML syntax error: Map keys must be unique/);
  await assert.rejects(parseScenario('- a\n- b\n', options), /expected a mapping at the top of the file, got a list/);
});

test('defaults are filled: the minimal scenario resolves to the full shape', async () => {
  const { scenario, warnings } = await loadScenario(fixture('minimal.yaml'), options);
  assert.deepEqual(warnings, []);
  const expected: Scenario = {
    name: 'minimal',
    description: '',
    seed: 1,
    broker: { kind: 'fake', partitions: 1, acks: 'all' },
    workload: {
      keys: { count: 1000, distribution: { kind: 'uniform' }, prefix: 'k' },
      entity: { kind: 'order', events: 'state', cancelShare: 0.25 },
      rate: { kind: 'fixed', perSecond: 500 },
      size: { kind: 'fixed', bytes: 256 },
      durationMs: 10_000,
      warmupMs: 2000,
      maxInFlight: 10_000,
      producers: [{ name: 'producer', processes: 1, sharedKeys: false }],
    },
    consumers: {
      processes: 1,
      handler: { kind: 'constant', ms: 0 },
      concurrency: { mode: 'partition', workers: 8 },
      strategy: 'versioned',
    },
    faults: [],
    // Every anomaly type at its default (unseen left out: it then bears on lost), from their one definition.
    expect: { ...Object.fromEntries(ANOMALY_TYPES.filter((t) => t !== 'unseen').map((t) => [t, ANOMALIES[t].expectedByDefault])), 'wrong-state': 'any' },
    run: { giveUpDelayMs: 2_000, maxDurationMs: 300_000, settleMs: 1000 },
  };
  assert.deepEqual(scenario, expected);
  assert.deepEqual(Object.keys(scenario.workload), ['keys', 'entity', 'rate', 'size', 'durationMs', 'warmupMs', 'maxInFlight', 'producers']);
});

test('the full fixture resolves: durations in ms, nested defaults, expectations normalised', async () => {
  const { scenario: s, warnings } = await loadScenario(fixture('full.yaml'), options);
  assert.deepEqual(warnings, []);
  assert.equal(s.name, 'hot-key-stall');
  assert.deepEqual(s.broker, { kind: 'fake', partitions: 3, acks: 'all' });
  assert.deepEqual(s.workload.rate, { kind: 'steps', steps: [{ perSecond: 200, forMs: 5000 }, { perSecond: 1000, forMs: 10_000 }] });
  assert.deepEqual(s.workload.producers, [
    { name: 'orders', processes: 2, sharedKeys: false },
    { name: 'payments', processes: 2, sharedKeys: true },
  ]);
  assert.deepEqual(s.workload.keys.distribution, { kind: 'hotspot', hotKeys: 1, share: 0.7 });
  assert.deepEqual(s.consumers.poison, { share: 0.001, keys: ['order-7'], policy: 'park-key', maxAttempts: 5, backoffMs: 100 });
  assert.deepEqual(s.consumers.overrides, { c2: { handler: { kind: 'uniform', minMs: 1, maxMs: 5 } } });
  assert.deepEqual(s.faults, [
    { name: 'stall-c1', kind: 'stall', atMs: 5000, durationMs: 3000, consumer: 'c1' },
    { name: 'kill-c2', kind: 'kill-consumer', atMs: 12_000, durationMs: 0, consumer: 'c2' },
  ]);
  assert.deepEqual(s.expect.reorder, { expect: '>0', during: 'stall-c1' });
  assert.deepEqual(s.expect.duplicate, { expect: '0', outside: 'kill-c2' });
  assert.equal(s.expect.lost, '0');
  assert.equal(s.expect.overlap, 'any');
  assert.deepEqual(s.run, { drainTimeoutMs: 15_000, giveUpDelayMs: 2_000, maxDurationMs: 300_000, settleMs: 500 });
});

test('durations: numbers are ms; strings take a unit', () => {
  assert.deepEqual(['30s', '250ms', '2m', '1h', '500us', '1.5s', 42].map((d) => parseDuration(d)), [30_000, 250, 120_000, 3_600_000, 0.5, 1500, 42]);
  assert.throws(() => parseDuration('5 parsecs'));
});

test('nightly limit: warm-up + duration + drain over 90 s warns, unless run.maxDurationMs allows it', async () => {
  const { warnings } = await loadScenario(fixture('too-long.yaml'), options);
  assert.deepEqual(warnings, [
    'planned duration 97 s (warm-up 2 s + sending 85 s + drain up to the redelivery horizon 10 s) is over the nightly limit of 90 s; set run.maxDurationMs to allow more',
  ]);
  const allowed = await parseScenario(ok.replace('5s', '85s') + 'run: { maxDurationMs: 2m }\n', options);
  assert.deepEqual(allowed.warnings, []);
  const cut = await parseScenario(ok.replace('5s', '85s') + 'run: { maxDurationMs: 95s }\n', options);
  assert.match(cut.warnings[0], /over run\.maxDurationMs 95 s: the run will be cut short/);
  // A message count at a fixed rate plans its own duration.
  const byCount = await parseScenario('broker: { kind: fake }\nworkload:\n  rate: { kind: fixed, perSecond: 100 }\n  messages: 10000\n', options);
  assert.equal(plannedSendingMs(byCount.scenario), 99_990);
  assert.match(byCount.warnings[0], /over the nightly limit/);
});

test('checks across fields', async () => {
  assert.deepEqual(await problems('broker: { kind: fake }\nworkload:\n  rate: { kind: unlimited }\n'), ['workload: expected durationMs or messages (or both), got neither']);
  assert.deepEqual(await problems(ok + '  keys: { count: 3, distribution: { kind: hotspot, hotKeys: 3, share: 0.5 } }\n'), [
    'workload.keys.distribution.hotKeys: expected integer < workload.keys.count (3), got 3',
  ]);
  assert.deepEqual(await problems(ok + '  size: { kind: uniform, min: 10, max: 5 }\n  producers: [{ name: a }, { name: a }]\n'), [
    'workload.size.max: expected integer ≥ workload.size.min (10), got 5',
    'workload.producers[1].name: expected a unique name, got "a" (also workload.producers[0].name)',
  ]);
  assert.deepEqual(await problems(ok + 'consumers:\n  processes: 2\n  poison: { policy: dead-letter }\n  overrides: { c3: { handler: { kind: constant, ms: 1 } } }\n'), [
    'consumers.overrides.c3: no such consumer; expected one of c1, c2 (consumers.processes is 2)',
    'consumers.poison: expected share or keys (or both), got neither',
  ]);
  assert.deepEqual(await problems(ok.replace('5s', '0')), ['workload.durationMs: expected a duration > 0, got 0']);
});

test('expectations: anomaly names, values, and windows that name an existing fault', async () => {
  assert.deepEqual(await fileProblems('bad-expectations.yaml'), [
    'expect.reordr: unknown property (did you mean reorder?)',
    'expect.lost: expected 0, ">0", "any", a bound such as "<5", or { expect, during | before | after | outside }, got "sometimes"',
  ]);
  const faults = 'faults:\n  - { name: stall-c1, kind: stall, atMs: 1s, durationMs: 1s, consumer: c1 }\n  - { name: stall-c1, kind: stall, atMs: 3s, consumer: c1 }\n';
  assert.deepEqual(await problems(ok + faults + 'expect:\n  gap: { expect: ">0", during: stall-c9 }\n  overlap: { expect: any, during: stall-c1, after: stall-c1 }\n  lost: { expect: 1 }\n'), [
    'expect.lost.expect: expected 0, ">0", "any" or a bound on the count such as "<5" or "<=3", got 1',
  ]);
  assert.deepEqual(await problems(ok + faults + 'expect:\n  gap: { expect: ">0", during: stall-c9 }\n  overlap: { expect: any, during: stall-c1, after: stall-c1 }\n'), [
    'faults[1].name: expected a unique name, got "stall-c1" (also faults[0].name)',
    'expect.gap.during: expected the name of a fault (stall-c1, stall-c1), got "stall-c9"',
    'expect.overlap: expected at most one of during, outside, before, after, got during and after',
  ]);
  assert.deepEqual(await problems(ok + 'expect:\n  reorder: { expect: ">0", before: nothing }\n'), [
    'expect.reorder.before: expected the name of a fault (the scenario has none), got "nothing"',
  ]);
});

test('the broker section is checked by the module: injected, skipped with a warning, or unknown', async () => {
  assert.deepEqual(await problems(ok.replace('{ kind: fake }', '{ kind: fake, acks: some }')), ['broker.acks: expected one of all, leader; got "some"']);
  const skipped = await parseScenario(ok.replace('kind: fake', 'kind: later'), options);
  assert.deepEqual(skipped.warnings, ['broker section not checked: no module for broker "later"']);
  assert.deepEqual(skipped.scenario.broker, { kind: 'later' });
  // The real registry: an unknown kind is an error naming the installed brokers.
  const p = await problems(ok.replace('kind: fake', 'kind: nosuchbroker'), { catalogue: await scenarioCatalogue() });
  assert.equal(p.length, 1);
  assert.match(p[0], /^broker\.kind: expected one of .*; got "nosuchbroker"$/);
  // resolveSettings errors (InputError detail lines) come out as problems.
  const failing = { settingsSchema: { type: 'object' }, resolveSettings: () => { throw new InputError('bad', ['broker.x: no good']); } };
  assert.deepEqual(await problems(ok, { catalogue: catalogue({ fake: failing }) }), ['broker.x: no good']);
});

test('fault kinds: common fields here, kind fields by the kind schema, registered through the hook', async () => {
  const f = (body: string) => ok + 'faults:\n  - ' + body + '\n';
  assert.deepEqual(await problems(f('{ name: s, kind: stal, atMs: 1s, consumer: c1 }')), ['faults[0].kind: expected one of kill-consumer, stall; got "stal"']);
  assert.deepEqual(await problems(f('{ name: s, kind: stall, atMs: 1s, consumr: c1 }')), [
    'faults[0].consumr: unknown property (did you mean consumer?)',
  ]);
  assert.deepEqual(await problems(f('{ name: s, kind: stall, consumer: 3 }')), ['faults[0].atMs: missing; expected a duration (milliseconds, or a string like "30s", "250ms", "2m")', 'faults[0].consumer: expected a string, got 3']);
  const withPause = { catalogue: catalogue(undefined, new Map([...faultKinds, ['test-pause', { schema: { type: 'object', properties: { target: { type: 'string' }, pauseMs: durationSchema }, required: ['target'] } }]])) };
  const { scenario } = await parseScenario(f('{ name: p, kind: test-pause, atMs: 2s, target: c1, pauseMs: 250ms }'), withPause);
  assert.deepEqual(scenario.faults, [{ name: 'p', kind: 'test-pause', atMs: 2000, durationMs: 0, target: 'c1', pauseMs: 250 }]);
  assert.deepEqual(await problems(f('{ name: p, kind: test-pause, atMs: 2s, targt: c1 }'), withPause), [
    'faults[0].targt: unknown property (did you mean target?)',
  ]);
  assert.deepEqual(await problems(f('{ name: p, kind: test-pause, atMs: 2s, pauseMs: soon }'), withPause), [
    'faults[0].target: missing; expected a string',
    'faults[0].pauseMs: expected a duration (milliseconds, or a string like "30s", "250ms", "2m"), got "soon"',
  ]);
  // A fault may go on into the drain, but one running past the drain timeout is worth a warning.
  const drain = await parseScenario(f('{ name: s, kind: stall, atMs: 4s, durationMs: 3s, consumer: c1 }'), options);
  assert.deepEqual(drain.warnings, []);
  const late = await parseScenario(f('{ name: s, kind: stall, atMs: 14s, durationMs: 3s, consumer: c1 }'), options);
  assert.deepEqual(late.warnings, ['faults[0]: s ends at 17 s, after the drain (15 s into the measured phase)']);
});

test('the drain: the broker horizon plus margin by default; a shorter run.drainTimeoutMs warns when a fault can send a message back; a long horizon can exceed the nightly budget', async () => {
  // The fake broker's horizon is 5 s (60 s with acks: leader); the margin 5 s.
  const stall = 'faults: [{ name: f1, kind: stall, consumer: c1, atMs: 1s, durationMs: 1s }]\n';
  assert.deepEqual((await parseScenario(ok, options)).warnings, []);
  assert.deepEqual((await parseScenario(ok + 'run: { drainTimeoutMs: 20s }\n', options)).warnings, []);
  // Nothing takes a message away from the consumers: the cap never meets the horizon.
  assert.deepEqual((await parseScenario(ok + 'run: { drainTimeoutMs: 4s }\n', options)).warnings, []);
  assert.deepEqual((await parseScenario(ok + stall + 'run: { drainTimeoutMs: 4s }\n', options)).warnings, [
    "run.drainTimeoutMs 4 s is shorter than the broker's redelivery horizon plus margin (10 s): a message its faults send back after the drain is reported unseen and the verdict may be unknown; to wait for it, raise the cap or leave it out",
  ]);
  const long = ok.replace('{ kind: fake }', '{ kind: fake, acks: leader }').replace('5s', '30s');
  assert.deepEqual((await parseScenario(long, options)).warnings, [
    'planned duration 97 s (warm-up 2 s + sending 30 s + drain up to the redelivery horizon 65 s) is over the nightly limit of 90 s; set run.maxDurationMs to allow more',
  ]);
  const capped = await parseScenario(long + stall + 'run: { drainTimeoutMs: 20s }\n', options);
  assert.deepEqual(capped.warnings, [
    "run.drainTimeoutMs 20 s is shorter than the broker's redelivery horizon plus margin (65 s): a message its faults send back after the drain is reported unseen and the verdict may be unknown; to wait for it, raise the cap or leave it out",
  ]);
});

test('ScenarioError names the file and counts the problems', async () => {
  await assert.rejects(loadScenario(fixture('wrong-type.yaml'), options), (err: unknown) => {
    assert.ok(err instanceof ScenarioError);
    assert.match(err.message, /wrong-type\.yaml: invalid scenario \(1 problem\)$/);
    assert.equal(err.exitCode, 2);
    return true;
  });
  await assert.rejects(loadScenario(fixture('no-such-file.yaml'), options), /cannot read/);
});

test('expectations: a list per type, each entry checked, and wrong-state takes no window', async () => {
  const base = `broker: { kind: fake }\nworkload: { rate: { kind: fixed, perSecond: 10 }, durationMs: 1s }\nfaults: [{ name: f1, kind: stall, consumer: c1, atMs: 1s }]\n`;
  const ok = await parseScenario(`${base}expect:\n  reorder: [{ expect: 0, before: f1 }, { expect: ">0", during: f1 }]\n  wrong-state: 0\n`, options);
  assert.deepEqual(ok.scenario.expect.reorder, [{ expect: '0', before: 'f1' }, { expect: '>0', during: 'f1' }]);
  assert.equal(ok.scenario.expect['wrong-state'], '0');
  const problems = async (text: string) => {
    try {
      await parseScenario(text, options);
    } catch (e) {
      return (e as ScenarioError).errors.join('\n');
    }
    throw new Error('expected the scenario to be rejected');
  };
  const listError = await problems(`${base}expect:\n  reorder: [{ expect: 2 }]\n`);
  assert.match(listError, /expect\.reorder\[0\]\.expect: expected 0, ">0", "any" or a bound on the count such as "<5" or "<=3", got 2/);
  assert.doesNotMatch(listError, /expected a list/);
  assert.match(await problems(`${base}expect:\n  wrong-state: { expect: 0, during: f1 }\n`), /wrong-state\.during: the final state has no time/);
});

test('a producer\'s broker overrides, per producer and per process, must make valid broker settings', async () => {
  const strict = {
    settingsSchema: { type: 'object', properties: { kind: { const: 'strict' }, acks: { enum: ['all', 'leader'] } } },
    resolveSettings: (s: Record<string, unknown>) => {
      if (s.acks !== undefined && s.acks !== 'all' && s.acks !== 'leader') throw new InputError('bad settings', [`broker.acks: ${String(s.acks)} is not all or leader`]);
      return { acks: 'all', ...s } as never;
    },
  };
  const text = `broker: { kind: strict }
workload:
  rate: { kind: fixed, perSecond: 10 }
  durationMs: 1s
  producers:
    - { name: w, processes: 2, processBroker: [{ acks: leader }, { acks: sometimes }] }
`;
  await assert.rejects(parseScenario(text, { catalogue: catalogue({ strict }) }), (e: ScenarioError) => {
    assert.deepEqual(e.errors, ['workload.producers[0].processBroker[1].acks: sometimes is not all or leader']);
    return true;
  });
  const ok = await parseScenario(text.replace('sometimes', 'all'), { catalogue: catalogue({ strict }) });
  assert.equal(ok.scenario.workload.producers[0].processBroker?.length, 2);
});
