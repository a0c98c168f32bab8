/**
 * A fault's evidence of a worker's process state: read from /proc for a worker here; for one on
 * an agent's host, whose pid means nothing here, it says so instead of reading whatever process
 * has that pid on this machine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { workerState } from '../../harness/faults/contract.ts';

test('a worker here is read from /proc; one on an agent is not', () => {
  assert.match(workerState({ pid: process.pid }), /^[RS]$/);
  assert.equal(workerState({ pid: process.pid, where: '10.0.0.3:7411' }), 'unknown: on agent 10.0.0.3:7411');
  assert.equal(workerState({ pid: undefined }), 'none');
});
