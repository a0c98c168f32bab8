// Request/response links ($cbs, $management): clients name their reply link in reply_to.
import type { Connection, Message, Sender } from "rhea";

export type Reply = Omit<Message, "body"> & { body?: unknown };

export class ReplyLinks {
  private readonly byConnection = new WeakMap<Connection, Map<string, Sender>>();

  add(connection: Connection, sender: Sender): void {
    let links = this.byConnection.get(connection);
    if (!links) {
      links = new Map();
      this.byConnection.set(connection, links);
    }
    links.set(sender.name, sender);
  }

  remove(connection: Connection, sender: Sender): void {
    const links = this.byConnection.get(connection);
    if (links?.get(sender.name) === sender) links.delete(sender.name);
  }

  /** Sends a reply on the link named (or addressed) `replyTo`; false when there is none. */
  send(connection: Connection, replyTo: string | undefined, reply: Reply): boolean {
    const links = this.byConnection.get(connection);
    if (!links || !replyTo) return false;
    let link = links.get(replyTo);
    if (!link) {
      for (const candidate of links.values()) {
        if ((candidate.target as { address?: string } | null)?.address === replyTo) link = candidate;
      }
    }
    if (!link || !link.is_open()) return false;
    link.send(reply as Message);
    return true;
  }
}
