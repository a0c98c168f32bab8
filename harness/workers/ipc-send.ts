import type { ChildProcess } from 'node:child_process';

/**
 * Sends one IPC message to a child that may be dying. `connected` stays true until the
 * 'disconnect' event has run, so a message sent to a child that just died fails later, with
 * EPIPE, as an 'error' event on the ChildProcess; unhandled, that error ends the runner.
 * The child's exit is handled where it is watched (its 'exit' event), so a message it can no
 * longer take is dropped here. Returns whether the message was handed to the channel.
 */
export function sendToChild(child: ChildProcess, msg: unknown): boolean {
  if (!child.connected) return false;
  child.send(msg as object, (err) => {
    void err; // the child is gone; its 'exit' handler reports it
  });
  return true;
}
