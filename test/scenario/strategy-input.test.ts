/** Bad input for consumer strategies: one line each with the path and the allowed values (exit 2 through the CLI). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScenarioError, parseScenario } from '../../harness/scenario/load.ts';
import { InputError } from '../../harness/errors.ts';
import { options } from './helpers.ts';

/** The problems a scenario text has ([] when it loads), by path (their file:line:col is tested in yaml-source.test.ts). */
const problems = (yaml: string): Promise<string[]> =>
  parseScenario(yaml, { ...options, file: 't.yaml' }).then(
    () => [],
    (err: unknown) => {
      if (err instanceof ScenarioError) return err.errors;
      if (err instanceof InputError) return err.detail;
      throw err;
    },
  );

const scenario = (entity: string, consumers: string, expect = '') =>
  `broker: { kind: fake }\nworkload:\n  rate: { kind: fixed, perSecond: 100 }\n  durationMs: 5s\n  entity: ${entity}\nconsumers: ${consumers}\n${expect}`;
const ALL = 'commutative-dedup, commutative, lww-timestamp, naive, notification, resequencer, state-machine, versioned';

test('an unknown strategy, by name or as kind', async () => {
  await assert.rejects(parseScenario(scenario('{ kind: order }', '{ strategy: no-such-strategy }'), { ...options, file: 't.yaml' }), (err: InputError) => {
    assert.deepEqual(err.detail, [`t.yaml:6:14: consumers.strategy: expected one of ${ALL}; got "no-such-strategy"`]);
    return true;
  });
  assert.deepEqual(await problems(scenario('{ kind: order }', '{ strategy: no-such-strategy }')), [`consumers.strategy: expected one of ${ALL}; got "no-such-strategy"`]);
  assert.deepEqual(await problems(scenario('{ kind: order }', '{ strategy: { kind: no-such-strategy } }')), [`consumers.strategy.kind: expected one of ${ALL}; got "no-such-strategy"`]);
});

test('an option the strategy does not take, and a bad value of one it does', async () => {
  assert.deepEqual(await problems(scenario('{ kind: order }', '{ strategy: { kind: naive, gaps: apply } }')), ['consumers.strategy.gaps: unknown property; expected one of kind']);
  assert.deepEqual(await problems(scenario('{ kind: order }', '{ strategy: { kind: versioned, gaps: hold } }')), ['consumers.strategy.gaps: expected one of reject, apply; got "hold"']);
  assert.deepEqual(await problems(scenario('{ kind: order, events: change }', '{ strategy: { kind: versioned, gaps: apply } }')), []);
});

test('commutative on an entity whose events are not deltas; a state machine without a status', async () => {
  assert.deepEqual(await problems(scenario('{ kind: wallet }', '{ strategy: commutative }')), [
    'consumers.strategy: commutative needs events that are deltas (workload.entity.kind wallet or counter, with events: change); workload.entity is wallet with events: state, which allows lww-timestamp, naive, notification, resequencer, versioned',
  ]);
  assert.deepEqual(await problems(scenario('{ kind: order, events: change }', '{ strategy: commutative-dedup }')), [
    'consumers.strategy: commutative-dedup needs events that are deltas (workload.entity.kind wallet or counter, with events: change); workload.entity is order with events: change, which allows lww-timestamp, naive, notification, resequencer, state-machine, versioned',
  ]);
  assert.deepEqual(await problems(scenario('{ kind: counter, events: change }', '{ strategy: commutative }', 'expect: { wrong-state: { expect: 0, strategy: state-machine } }')), [
    'expect.wrong-state.strategy: state-machine needs an entity with a status (workload.entity.kind: order); workload.entity is counter with events: change, which allows commutative-dedup, commutative, lww-timestamp, naive, notification, resequencer, versioned',
  ]);
});

test('wrong-state names a strategy, and has no window', async () => {
  assert.deepEqual(await problems(scenario('{ kind: order }', '{ strategy: naive }', 'expect: { wrong-state: { expect: 0, strategy: nope } }')), [`expect.wrong-state.strategy: expected one of ${ALL}; got "nope"`]);
  assert.deepEqual(await problems(scenario('{ kind: wallet, events: change }', '{ strategy: commutative }', 'expect: { wrong-state: [{ expect: ">0", strategy: naive }, 0] }')), []);
  assert.deepEqual(await problems(scenario('{ kind: order, events: sometimes }', '{ strategy: naive }')), ['workload.entity.events: expected one of state, change; got "sometimes"']);
});
