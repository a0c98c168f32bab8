// Bookkeeping for attached links: which handler serves a link, which links live on a connection
// (so a dropped connection cleans them all up), and which work on a given queue.
import rhea from "rhea";
import type { AmqpError, Connection, Delivery, EventContext, Receiver, Sender } from "rhea";
import type { QueueEntity } from "../model/queue.ts";
import { localAttach } from "./rheaInternals.ts";

export type Outcome = "accepted" | "rejected" | "modified" | "released";

export interface LinkHandler {
  /** The queue the link works on, so deleting the queue can detach it. */
  readonly queue?: QueueEntity;
  /** A transfer arrived on one of our receivers. */
  onMessage?(ctx: EventContext): void;
  /** One of our senders got credit (or room to send). */
  onCredit?(): void;
  /** The client asked one of our senders to drain its credit. */
  onDrain?(): void;
  /** The client settled a delivery we sent. */
  onOutcome?(delivery: Delivery, outcome: Outcome): void;
  /** The broker detaches the link with an error (queue deleted). */
  abort?(error: AmqpError): void;
  /** The link detached, its connection dropped, or the emulator is closing. Must be idempotent. */
  onClose(): void;
}

type Link = Sender | Receiver;

export class LinkRegistry {
  private readonly byLink = new WeakMap<Link, LinkHandler>();
  private readonly byConnection = new Map<Connection, Set<LinkHandler>>();
  private readonly linkOf = new Map<LinkHandler, Link>();

  register(connection: Connection, link: Link, handler: LinkHandler): void {
    this.byLink.set(link, handler);
    this.linkOf.set(handler, link);
    let set = this.byConnection.get(connection);
    if (!set) {
      set = new Set();
      this.byConnection.set(connection, set);
    }
    set.add(handler);
  }

  get(link: Link | undefined): LinkHandler | undefined {
    return link ? this.byLink.get(link) : undefined;
  }

  /** The client detached a link. */
  closeLink(connection: Connection, link: Link): void {
    const handler = this.byLink.get(link);
    if (!handler) return;
    this.byLink.delete(link);
    this.linkOf.delete(handler);
    this.byConnection.get(connection)?.delete(handler);
    handler.onClose();
  }

  /** The connection closed or dropped: every link on it is gone. */
  closeConnection(connection: Connection): void {
    const set = this.byConnection.get(connection);
    this.byConnection.delete(connection);
    if (!set) return;
    for (const handler of set) {
      this.linkOf.delete(handler);
      handler.onClose();
    }
  }

  /** Detaches every link working on a deleted queue. */
  abortQueue(queue: QueueEntity, error: AmqpError): void {
    for (const handler of [...this.linkOf.keys()]) {
      if (handler.queue === queue) {
        handler.abort?.(error);
        handler.onClose();
      }
    }
  }

  connections(): Connection[] {
    return [...this.byConnection.keys()];
  }
}

/** Refuses an attach the way the service does: answer with a null terminus, then detach with the error. */
export function refuseAttach(link: Link, error: AmqpError): void {
  const attach = localAttach(link);
  if (link.is_sender()) attach.source = null;
  else attach.target = null;
  link.close(error);
}

/** Echoes the client's terminus addresses in our attach (rhea leaves them empty otherwise). */
export function echoTermini(link: Link): void {
  const source = link.source as { address?: string } | null;
  const target = link.target as { address?: string } | null;
  if (source) link.set_source({ address: source.address } as Parameters<Link["set_source"]>[0]);
  if (target?.address !== undefined) link.set_target({ address: target.address });
}

export const outcomes = {
  accepted(): unknown {
    return (rhea.message as unknown as { accepted(): { described(): unknown } }).accepted().described();
  },
  rejected(error: AmqpError): unknown {
    return (rhea.message as unknown as { rejected(f: unknown): { described(): unknown } })
      .rejected({ error })
      .described();
  },
};
