/**
 * The published client protocol schema (results/schema/client-protocol.v1.json) takes a line of
 * each message, either way, and refuses one that breaks its message's shape.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { FROM_CLIENT, TO_CLIENT } from '../../harness/client-protocol/messages.ts';

const schema = JSON.parse(readFileSync(new URL('../../results/schema/client-protocol.v1.json', import.meta.url), 'utf8'));
const validate = new Ajv2020({ strict: false }).compile(schema);

const lines: Record<string, unknown> = {
  hello: { type: 'hello', protocol: 1, client: { name: 'franz-go client', version: '1.0.0' }, capabilities: ['refresh-metadata'], clockUs: 123.5 },
  ready: { type: 'ready' },
  ack: { type: 'ack', id: 1, lane: '2', offset: 41, at: 1000 },
  failure: { type: 'failure', id: 2, message: 'MESSAGE_TOO_LARGE', definite: true, at: 1001 },
  delivery: { type: 'delivery', id: 1, lane: '2', offset: 41, deliveryCount: 1, payload: 'Y3YB', at: 1002 },
  settled: { type: 'settled', id: 1 },
  group: { type: 'group', phase: 'assigned', lanes: ['0', '1'], generation: 3 },
  'before-commit': { type: 'before-commit', id: 9 },
  reply: { type: 'reply', id: 4, result: {} },
  pong: { type: 'pong', id: 5, clockUs: 77 },
  log: { type: 'log', line: 'joined the group' },
  fatal: { type: 'fatal', message: 'cannot reach the broker', log: ['a', 'b'] },
  closed: { type: 'closed' },
  configure: { type: 'configure', role: 'consumer', id: 'c1', endpoint: { bootstrapServers: ['127.0.0.1:9092'] }, settings: { kind: 'kafka' }, names: { runId: 'r', prefix: 'convoy-r' }, maxInFlight: 1 },
  send: { type: 'send', id: 1, key: 'k1', payload: 'Y3YB' },
  settle: { type: 'settle', id: 1, how: 'requeue' },
  'commit-ok': { type: 'commit-ok', id: 9 },
  request: { type: 'request', id: 4, what: 'errors-seen' },
  ping: { type: 'ping', id: 5 },
  close: { type: 'close' },
};

test('every message of the protocol, either way, has a line the schema takes', () => {
  const types = [...FROM_CLIENT, ...TO_CLIENT].map((m) => m.properties.type.const);
  assert.deepEqual(Object.keys(lines).sort(), [...types].sort());
  for (const [type, line] of Object.entries(lines)) assert.ok(validate(line), `${type}: ${JSON.stringify(validate.errors)}`);
});

test('a line that breaks its message is refused', () => {
  for (const bad of [
    { type: 'ack', lane: '2' }, // no id
    { type: 'settle', id: 1, how: 'later' },
    { type: 'hello', protocol: 1, client: { name: 'x' }, capabilities: [], clockUs: 1 },
    { type: 'nonsense' },
  ]) assert.equal(validate(bad), false, JSON.stringify(bad));
});
