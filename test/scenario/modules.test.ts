/**
 * The loader's modules one by one, without the loader: defaults, checks across fields, the
 * suite's rules, the wording of schema errors, schema validation with a catalogue's plug-ins.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultName, fillDefaults, parseDuration, resolveExpectations } from '../../harness/scenario/defaults.ts';
import { crossChecks, producerSettingsProblems } from '../../harness/scenario/cross-checks.ts';
import { durationWarnings, NIGHTLY_LIMIT_MS, plannedSendingMs, secs, windowsInsideRun } from '../../harness/scenario/suite-rules.ts';
import { describe as describeSchema, suggest } from '../../harness/scenario/wording.ts';
import { brokerProblems, faultFieldProblems, scenarioProblems } from '../../harness/scenario/validate.ts';
import { scenarioSchema } from '../../harness/scenario/schema.ts';
import { InputError } from '../../harness/errors.ts';
import type { Scenario } from '../../harness/spec/types.ts';
import type { SchemaObject } from '../../harness/scenario/values.ts';
import { catalogue } from './helpers.ts';

const root = scenarioSchema as unknown as SchemaObject;

/** A resolved scenario from a partial one: the schema's defaults filled in. */
function resolved(partial: Record<string, unknown>): Scenario {
  const s = fillDefaults(root, structuredClone(partial), root) as Record<string, any>;
  s.expect = resolveExpectations(s.expect ?? {});
  return s as Scenario;
}

const base = { name: 'x', broker: { kind: 'fake' }, workload: { rate: { kind: 'fixed', perSecond: 100 }, durationMs: '5s' } };

test('defaults: nested defaults and durations from the schema, the name from the file, every anomaly type expected', () => {
  const s = resolved(base);
  assert.equal(s.workload.durationMs, 5000);
  assert.equal(s.workload.warmupMs, 2000);
  assert.deepEqual(s.workload.keys, { count: 1000, distribution: { kind: 'uniform' }, prefix: 'k' });
  assert.deepEqual(s.consumers.concurrency, { mode: 'partition', workers: 8 });
  assert.equal(s.expect.reorder, '0');
  assert.equal(s.expect.duplicate, 'any');
  assert.equal('unseen' in s.expect, false, 'unseen left out stays out (it then bears on lost)');
  assert.equal(defaultName('workloads/nightly/kafka hot key.yaml'), 'kafka-hot-key');
  assert.equal(parseDuration('1.5s'), 1500);
});

test('cross-checks: what the schema cannot say, each with its path', () => {
  const warnings: string[] = [];
  const s = resolved({ ...base, workload: { ...base.workload, keys: { count: 2, distribution: { kind: 'hotspot', hotKeys: 2, share: 0.5 } } }, consumers: { poison: { keys: ['nokey'] } } });
  assert.deepEqual(crossChecks(s, base, warnings, catalogue().strategies), ['workload.keys.distribution.hotKeys: expected integer < workload.keys.count (2), got 2']);
  assert.deepEqual(warnings, ['consumers.poison.keys: "nokey" is not one of the workload\'s keys (k0..k1)']);
  const strict = (settings: Record<string, unknown>) => {
    if (settings.acks === 'some') throw new InputError('bad', ['broker.acks: not some']);
    return settings as never;
  };
  const p = resolved({ ...base, workload: { ...base.workload, producers: [{ name: 'w', broker: { acks: 'some' } }] } });
  assert.deepEqual(producerSettingsProblems(p, strict), ['workload.producers[0].broker.acks: not some']);
});

test('suite rules: the planned time against the nightly limit, windows that cannot start inside the run', () => {
  const long = resolved({ ...base, workload: { ...base.workload, durationMs: '85s' } });
  assert.equal(plannedSendingMs(long), 87_000);
  assert.equal(NIGHTLY_LIMIT_MS, 90_000);
  assert.match(durationWarnings(long, base, 5000)[0], /planned duration 97 s .* over the nightly limit of 90 s/);
  assert.deepEqual(durationWarnings(resolved(base), base, 5000), []);
  const late = resolved({ ...base, faults: [{ name: 'late', kind: 'stall', atMs: 60_000, durationMs: 0 }], expect: { reorder: { expect: '>0', during: 'late' } } });
  assert.match(windowsInsideRun(late, 5000)[0], /^expect\.reorder\.during: fault "late" starts at 60 s, which cannot happen inside the run/);
  assert.equal(secs(1500), '1.5 s');
});

test('wording: what a schema accepts, in words; the closest name for a typo', () => {
  assert.equal(describeSchema({ type: 'integer', minimum: 1, maximum: 10 }, root), 'integer between 1 and 10');
  assert.equal(describeSchema({ $ref: '#/$defs/duration' }, root), 'a duration (milliseconds, or a string like "30s", "250ms", "2m")');
  assert.equal(suggest('procceses', ['processes', 'handler']), 'processes');
  assert.equal(suggest('banana', ['processes', 'handler']), undefined);
});

test('validation: the catalogue\'s strategies and modes are the allowed values; broker and fault sections by their own schemas', () => {
  const withMine = { ...catalogue(), strategies: new Map([['mine', { description: 'my own' }]]) };
  const data = { ...base, consumers: { strategy: 'versioned' } };
  assert.deepEqual(scenarioProblems(data, withMine), ['consumers.strategy: expected one of mine; got "versioned"']);
  assert.deepEqual(scenarioProblems({ ...base, consumers: { strategy: 'mine' } }, withMine), []);
  assert.deepEqual(scenarioProblems(data, catalogue()), []);
  assert.deepEqual(brokerProblems({ type: 'object', properties: { acks: { enum: ['all'] } }, additionalProperties: false }, 'fake', { kind: 'fake', ack: 'all' }), [
    'broker.ack: unknown property (did you mean acks?)',
  ]);
  assert.deepEqual(faultFieldProblems('stall', { type: 'object', properties: { consumer: { type: 'string' } } }, { name: 's', kind: 'stall', atMs: 1 }, 'faults[0]'), []);
  assert.deepEqual(faultFieldProblems('stall', { type: 'object', properties: { consumer: { type: 'string' } } }, { name: 's', kind: 'stall' }, 'faults[3]'), [
    'faults[3].atMs: missing; expected a duration (milliseconds, or a string like "30s", "250ms", "2m")',
  ]);
});
