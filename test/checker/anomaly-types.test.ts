/**
 * The anomaly types are defined once (harness/checker/anomaly-types.ts): the test oracle, the
 * scenario's defaults and schema, the checker's defaults and window relations, and the
 * published result schema all agree with that definition, so `convoy run` (the scenario's
 * defaults) and `convoy check` (the checker's) cannot drift apart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ANOMALIES, ANOMALY_TYPES, WINDOW_RELATIONS } from '../../harness/checker/anomaly-types.ts';
import { defaultExpectations } from '../../harness/checker/expectations.ts';
import { resolveExpectations } from '../../harness/scenario/defaults.ts';
import { scenarioSchema } from '../../harness/scenario/schema.ts';
import { TYPES as ORACLE_TYPES } from './oracle.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

test('the test oracle, written apart from the checker, knows the same types in the same order', () => {
  assert.deepEqual([...ORACLE_TYPES], [...ANOMALY_TYPES]);
});

test('a scenario that says nothing expects of each type what the checker expects by default', () => {
  const byScenario = resolveExpectations({});
  for (const e of defaultExpectations()) {
    assert.equal(e.expect, ANOMALIES[e.type].expectedByDefault, e.type);
    // unseen left out stays out of the scenario (it then bears on lost); every other type is there.
    if (e.type === 'unseen') assert.equal(byScenario.unseen, undefined);
    else assert.equal(byScenario[e.type], e.expect, `scenario default of ${e.type}`);
  }
});

test("the scenario schema offers every type and exactly the checker's window relations", () => {
  const defs = scenarioSchema.$defs as Record<string, any>;
  const expectProps = Object.keys(defs.expect.properties);
  for (const t of ANOMALY_TYPES) assert.ok(expectProps.includes(t), `expect.${t} missing`);
  const scoped = defs.expectation.oneOf.find((b: any) => b.type === 'object');
  assert.deepEqual(Object.keys(scoped.properties).filter((k) => k !== 'expect'), [...WINDOW_RELATIONS]);
});

test('the published result schema lists every type, and requires those every result version had', () => {
  const schema = JSON.parse(readFileSync(`${ROOT}results/schema/result.v1.json`, 'utf8'));
  const find = (o: any): any => (o && typeof o === 'object' ? (o.properties?.anomalies ?? Object.values(o).map(find).find(Boolean)) : undefined);
  const anomalies = find(schema);
  assert.deepEqual(Object.keys(anomalies.properties), [...ANOMALY_TYPES]);
  assert.deepEqual([...anomalies.required].sort(), ANOMALY_TYPES.filter((t) => !('since' in ANOMALIES[t])).sort());
});
