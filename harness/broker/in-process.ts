/**
 * A broker that lives inside the runner process (the memory broker, a test double). Its
 * clients in worker processes reach it over the worker's stream to the runner (the worker
 * protocol, docs/worker-protocol.md); clients in the runner process itself (admin, tests) reach
 * it directly. Either way a client holds a PeerLink: calls that answer, tells that do not, and
 * pushes the broker sends on its own (deliveries, rebalances). Their arguments, answers and
 * pushes are JSON values either way: bytes go as base64 strings.
 */

/** A client's end: what a producer or consumer adapter talks to. */
export interface PeerLink {
  call(method: string, args: unknown): Promise<unknown>;
  /**
   * A call whose answer the client would not wait for (a settlement, a hand-over notice): no
   * reply crosses the stream, which halves the messages such a call costs. Later calls
   * and tells of the link still reach the broker after it. Its error, if any, goes to the run's
   * log (from a worker) or nowhere (direct).
   */
  tell(method: string, args: unknown): void;
  onPush(handler: (msg: unknown) => void): void;
  /** The client is done: the broker treats it as gone (a dead consumer's deliveries come back). */
  close(): void;
}

/** The broker's end of one client. */
export interface PeerSession {
  call(method: string, args: unknown): Promise<unknown>;
  /** The client went away: closed, or its process died. */
  closed(): void;
}

/** What an in-process broker's Deployment offers the runner: one session per client. */
export interface BrokerHost {
  connect(peer: string, push: (msg: unknown) => void): PeerSession;
}

/** A link to a host in this very process. */
export function directLink(host: BrokerHost, peer: string): PeerLink {
  const handlers: ((msg: unknown) => void)[] = [];
  // Pushes are delivered on a later tick, as they would be over a worker's stream.
  const session = host.connect(peer, (msg) => queueMicrotask(() => handlers.forEach((h) => h(msg))));
  let open = true;
  return {
    call: (method, args) => (open ? session.call(method, args) : Promise.reject(new Error('link closed'))),
    tell: (method, args) => void (open ? session.call(method, args).catch(() => {}) : undefined),
    onPush: (h) => void handlers.push(h),
    close: () => {
      if (!open) return;
      open = false;
      session.closed();
    },
  };
}
