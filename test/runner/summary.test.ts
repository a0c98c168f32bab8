/** The run summary's table and the owner line of a reused broker, as a person reads them. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alignColumns } from '../../harness/runner/summary.ts';
import { ownerOf } from '../../harness/runtime/instances.ts';
import { isGroupJoinChatter } from '../../brokers/kafka/client-kafkajs.ts';

test('large counts never run into the next column (regression: "2722088" and "100" read "2722088100")', () => {
  const lines = alignColumns([
    ['expectation', 'expected', 'found', 'keys', 'held'],
    ['lost', '0', '2722088', '100', 'NO'],
    ['reorder during stall-busiest', '>0', '5', '3', 'yes'],
  ]);
  assert.equal(lines[1], 'lost                          0         2722088  100   NO');
  for (const l of lines) assert.doesNotMatch(l, /2722088100/);
  // Every column starts where its header does, after at least two spaces.
  for (const name of ['expected', 'found', 'keys', 'held']) {
    const col = lines[0]!.indexOf(name);
    for (const l of lines) assert.ok(l[col] !== ' ' && l.slice(col - 2, col) === '  ', `${name} in "${l}"`);
  }
});

test('a broker the suite started is said to be started for the suite, not by `convoy brokers up`', () => {
  assert.equal(ownerOf({ startedBy: 'suite', startedAt: '2026-12-01T00:00:00Z' }), 'started for the suite');
  assert.match(ownerOf({ startedAt: '2026-12-01T00:00:00Z' }), /started by `convoy brokers up` at 2026-12-01/);
});

test('kafkajs group-join chatter is told from real errors', () => {
  assert.ok(isGroupJoinChatter('[Connection] Response JoinGroup(key: 11, version: 5): The group is rebalancing, re-joining'));
  assert.ok(isGroupJoinChatter('[Runner] The coordinator is not aware of this member'));
  assert.ok(!isGroupJoinChatter('[Connection] Connection error: connect ECONNREFUSED 127.0.0.1:9092'));
  assert.ok(!isGroupJoinChatter('[Producer] Failed to send messages: This server is not the leader for that topic-partition'));
});
