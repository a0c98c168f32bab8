/**
 * A worker's link to an in-process broker living in the runner (harness/broker/in-process.ts),
 * over the worker's stream to the runner (runner-channel.ts). One link per client: calls carry
 * the link's number, so a producer and a consumer in one process (or a consumer reconnecting)
 * stay apart.
 */
import type { PeerLink } from '../broker/in-process.ts';
import type { FromWorker, ToWorker } from './protocol.ts';
import { reportLeftovers } from './open-handles.ts';
import { runnerChannel, type RunnerChannel } from './runner-channel.ts';

let nextLink = 0;
let nextCall = 0;
const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
const pushHandlers = new Map<number, ((msg: unknown) => void)[]>();
let listening: RunnerChannel | undefined;

function channel(): RunnerChannel {
  const runner = runnerChannel();
  if (!runner?.open) throw new Error('no runner: an in-process broker needs its worker to be started by the runner');
  if (listening === runner) return runner;
  listening = runner;
  // Installed once for the process: a reused worker's next run links through it too.
  runner.on((m: ToWorker) => {
    if (m.type === 'broker-reply') {
      const p = pending.get(m.call);
      pending.delete(m.call);
      if (m.ok) p?.resolve(m.value);
      else p?.reject(new Error(m.error));
    } else if (m.type === 'broker-push') {
      for (const h of pushHandlers.get(m.link) ?? []) h(m.msg);
    }
  });
  // A run that ends with a link open or a call unanswered leaves its broker session behind.
  reportLeftovers(() => [
    ...(pushHandlers.size > 0 ? [`${pushHandlers.size} open broker link(s)`] : []),
    ...(pending.size > 0 ? [`${pending.size} unanswered broker call(s)`] : []),
  ]);
  return runner;
}

function send(m: FromWorker): void {
  channel().send(m);
}

/** Sends when the runner is still there (a tell, a close: nothing waits for them). */
function sendIfOpen(m: FromWorker): void {
  const runner = runnerChannel();
  if (runner?.open) runner.send(m);
}

export function runnerLink(): PeerLink {
  const link = ++nextLink;
  send({ type: 'broker-open', link });
  pushHandlers.set(link, []);
  return {
    call: (method, args) =>
      new Promise((resolve, reject) => {
        const call = ++nextCall;
        pending.set(call, { resolve, reject });
        try {
          send({ type: 'broker-call', link, call, method, args });
        } catch (err) {
          pending.delete(call);
          reject(err as Error);
        }
      }),
    tell: (method, args) => sendIfOpen({ type: 'broker-call', link, method, args }),
    onPush: (h) => void pushHandlers.get(link)?.push(h),
    close: () => {
      pushHandlers.delete(link);
      sendIfOpen({ type: 'broker-close', link });
    },
  };
}
