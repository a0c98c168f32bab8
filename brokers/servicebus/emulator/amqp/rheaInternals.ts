// The only module that touches rhea's private fields. rhea has no public API for three things a
// Service Bus server needs: holding an incoming attach open (accept-next-session long poll),
// counting transfers still queued on a link (exact credit), and echoing drain=true even when the
// drain used up the credit (the SDK waits for that echo). Checked against rhea 3.0.x.
import type { Socket } from "node:net";
import type { Connection, Delivery, Receiver, Sender } from "rhea";

type Link = Sender | Receiver;
/* eslint-disable @typescript-eslint/no-explicit-any */
const raw = (x: unknown): any => x;

/** Call inside sender_open/receiver_open: rhea has queued our attach; take it back. */
export function holdAttach(link: Link): void {
  const state = raw(link).state;
  state.open_requests = 0;
  state.local_open = false;
}

/** Sends a previously held attach. */
export function releaseAttach(link: Link): void {
  raw(link).open();
}

/** The attach frame rhea will send for this link; fields may be changed until it is written. */
export function localAttach(link: Link): {
  source?: unknown;
  target?: unknown;
  snd_settle_mode?: number;
  rcv_settle_mode?: number;
  max_message_size?: number;
  properties?: Record<string, unknown>;
} {
  return raw(link).local.attach;
}

/** Link credit the client granted (rhea tracks it but does not declare it). */
export function credit(sender: Sender): number {
  return raw(sender).credit as number;
}

/** Transfers queued on `sender` that rhea has not written yet (they do not show in credit). */
export function queuedTransfers(sender: Sender): number {
  const out = raw(sender).session?.outgoing;
  if (!out) return 0;
  let n = 0;
  for (let id = out.next_pending_delivery; id < out.next_delivery_id; id++) {
    const d = out.deliveries.by_id(id);
    if (d && d.link === sender) n++;
  }
  return n;
}

/**
 * rhea only sets drain=true on its answering flow when credit is left over; if the transfers
 * used it all, the SDK never sees the drain complete and closes the link. Always echo it.
 */
export function alwaysEchoDrain(sender: Sender): void {
  const s = raw(sender);
  s._get_drain = function (this: any): boolean {
    if (this._draining && this._drained) {
      this.delivery_count += this.credit;
      this.credit = 0;
      this._drained = false;
      return true;
    }
    return false;
  };
}

/** Answers a drain request after the available messages were sent. */
export function completeDrain(sender: Sender): void {
  sender.set_drained(true);
  raw(sender).connection._register();
}

export function isDraining(sender: Sender): boolean {
  return Boolean(raw(sender)._draining);
}

/** True once the link or its session/connection is gone (sending would throw or be lost). */
export function linkGone(link: Link): boolean {
  return !link.is_open() || link.is_closed();
}

export function connectionOf(link: Link): Connection {
  return raw(link).connection;
}

/**
 * rhea learns that a socket is gone only from 'end' or 'error'. A socket destroyed without
 * either (our own close(), some proxies) would leave the connection's idle timer running and its
 * links registered, so turn that 'close' into the 'end' rhea listens for.
 */
export function reportCloseAsEof(socket: Socket): void {
  socket.on("close", () => {
    if (!socket.readableEnded) socket.emit("end");
  });
}

/**
 * rhea treats any frame on a channel whose session has ended as a protocol error and drops the
 * whole connection. Under load we saw the SDK send such a frame (a detach on a channel it had
 * just ended, around an accept-next-session timeout); ignore stragglers so one late frame does not
 * cut every link of that client.
 */
export function ignoreFramesForEndedSessions(connection: Connection): void {
  const conn = raw(connection);
  for (const name of ["detach", "flow", "disposition", "transfer", "end", "attach"]) {
    const handler = conn[`on_${name}`];
    conn[`on_${name}`] = function (this: any, frame: { channel: number }): void {
      if (!this.remote_channel_map[frame.channel]) return;
      handler.call(this, frame);
    };
  }
}

/** Settles a delivery we sent, with the given outcome, in one disposition frame. */
export function settle(delivery: Delivery, outcome: unknown): void {
  delivery.update(true, outcome);
  // In rcv-settle-mode "second" the client never settles after us, and rhea frees a sent delivery
  // only once both sides settled: without this every peek-lock delivery would stay in the
  // session's outgoing buffer until it overflows.
  raw(delivery).remote_settled = true;
}
