/**
 * A message sent to a worker that has just died must not end the runner. Regression test: the
 * memory broker pushed a rebalance to a consumer whose process was gone (its 'exit' event not
 * yet run), the send failed with EPIPE as an unhandled 'error' event, and the run ended with a
 * stack trace.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { sendToChild } from '../../harness/workers/ipc-send.ts';

/** A child that idles on its IPC channel, killed with SIGKILL; resolves once its pid is gone but before its 'exit' event has run. */
async function deadButConnected(): Promise<ChildProcess> {
  const child = fork('-e', ['process.on("message", () => {}); setInterval(() => {}, 1000);'], { execArgv: [], stdio: ['ignore', 'ignore', 'ignore', 'ipc'] } as never);
  await new Promise<void>((r) => child.once('spawn', () => r()));
  child.kill('SIGKILL');
  // Busy-wait (the event loop must not run, or 'disconnect' would clear `connected`).
  const until = Date.now() + 5_000;
  for (;;) {
    try {
      process.kill(child.pid!, 0);
    } catch {
      break; // gone
    }
    if (Date.now() > until) break;
  }
  assert.equal(child.connected, true, 'the channel still looks connected');
  return child;
}

function errorsWithin(child: ChildProcess, ms: number): Promise<Error[]> {
  const errors: Error[] = [];
  child.on('error', (e) => errors.push(e));
  return new Promise((r) => setTimeout(() => r(errors), ms));
}

test('a plain send to a child that just died fails later with an error event (the hazard)', async () => {
  const child = await deadButConnected();
  const seen = errorsWithin(child, 500);
  for (let i = 0; i < 50; i++) if (child.connected) child.send({ n: i });
  const errors = await seen;
  assert.ok(errors.length > 0, 'without a callback the failure comes back as an error event');
});

test('sendToChild to a child that just died: no error event, and nothing once the channel is closed', async () => {
  const child = await deadButConnected();
  const seen = errorsWithin(child, 500);
  for (let i = 0; i < 50; i++) sendToChild(child, { n: i });
  assert.deepEqual(await seen, []);
  assert.equal(child.connected, false);
  assert.equal(sendToChild(child, { n: 'late' }), false);
});
