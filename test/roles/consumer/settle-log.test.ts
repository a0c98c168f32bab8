/** Failed settlements are told once per kind, with a count, not once per message (harness/roles/consumer/settle-log.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { settleFailureLog } from '../../../harness/roles/consumer/settle-log.ts';

test('a stall that expires every session lock logs one line per kind of failure, with how many more', () => {
  const lines: string[] = [];
  const log = settleFailureLog((l) => lines.push(l));
  for (const k of [12, 17, 12, 17, 3]) log(`settle ack failed: The session lock has expired on the session with id k${k}`);
  log('settle requeue failed: the link is closed');
  assert.deepEqual(lines, [
    'settle ack failed: The session lock has expired on the session with id k12',
    'settle requeue failed: the link is closed',
  ]);
});
