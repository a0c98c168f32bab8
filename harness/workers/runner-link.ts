/**
 * A worker's link to an in-process broker living in the runner (harness/broker/in-process.ts),
 * over the worker's IPC channel. One link per client: calls carry the link's number, so a
 * producer and a consumer in one process (or a consumer reconnecting) stay apart.
 */
import type { PeerLink } from '../broker/in-process.ts';
import type { FromWorker, ToWorker } from './protocol.ts';
import { processWide, reportLeftovers } from './open-handles.ts';

let nextLink = 0;
let nextCall = 0;
const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
const pushHandlers = new Map<number, ((msg: unknown) => void)[]>();
let listening = false;

function listen(): void {
  if (listening) return;
  listening = true;
  const onMessage = (m: ToWorker) => {
    if (m.type === 'broker-reply') {
      const p = pending.get(m.call);
      pending.delete(m.call);
      if (m.ok) p?.resolve(m.value);
      else p?.reject(new Error(m.error));
    } else if (m.type === 'broker-push') {
      for (const h of pushHandlers.get(m.link) ?? []) h(m.msg);
    }
  };
  const onDisconnect = () => {
    for (const p of pending.values()) p.reject(new Error('the runner is gone'));
    pending.clear();
  };
  // Installed once for the process: a reused worker's next run links through them too.
  for (const [event, l] of [['message', onMessage], ['disconnect', onDisconnect]] as const) {
    process.on(event, l);
    processWide(l);
  }
  // A run that ends with a link open or a call unanswered leaves its broker session behind.
  reportLeftovers(() => [
    ...(pushHandlers.size > 0 ? [`${pushHandlers.size} open broker link(s)`] : []),
    ...(pending.size > 0 ? [`${pending.size} unanswered broker call(s)`] : []),
  ]);
}

function send(m: FromWorker): void {
  if (!process.connected) throw new Error('no runner: an in-process broker needs its worker to be started by the runner');
  process.send!(m);
}

export function runnerLink(): PeerLink {
  listen();
  const link = ++nextLink;
  pushHandlers.set(link, []);
  send({ type: 'broker-open', link });
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
    tell: (method, args) => {
      if (process.connected) send({ type: 'broker-call', link, method, args });
    },
    onPush: (h) => void pushHandlers.get(link)?.push(h),
    close: () => {
      pushHandlers.delete(link);
      if (process.connected) process.send!({ type: 'broker-close', link } satisfies FromWorker);
    },
  };
}
