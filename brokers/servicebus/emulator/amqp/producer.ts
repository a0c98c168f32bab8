// A client's sender link to a queue: every transfer (single message or batch) is stored and then
// accepted, or rejected with the service's error so the SDK's send() fails the same way.
import type { Connection, EventContext, Message as AmqpMessage, Receiver } from "rhea";
import { asBrokerError, BrokerError, Condition } from "../model/errors.ts";
import type { Namespace } from "../model/namespace.ts";
import type { QueueEntity } from "../model/queue.ts";
import { BATCH_MESSAGE_FORMAT, decodeBatch } from "./codec.ts";
import { echoTermini, refuseAttach, type LinkHandler, type LinkRegistry } from "./links.ts";
import { linkGone, localAttach } from "./rheaInternals.ts";

/** Standard tier's message size limit; the SDK sizes batches from this attach field. */
export const MAX_MESSAGE_SIZE = 262_144;

class ProducerLink implements LinkHandler {
  constructor(
    private readonly receiver: Receiver,
    readonly queue: QueueEntity,
  ) {}

  onMessage(ctx: EventContext): void {
    const delivery = ctx.delivery;
    if (!delivery) return;
    try {
      const format = (ctx as { format?: number }).format;
      let messages: AmqpMessage[];
      if (format === BATCH_MESSAGE_FORMAT) {
        const payload = ctx.message as unknown as Buffer;
        if (payload.length > MAX_MESSAGE_SIZE) {
          throw new BrokerError(Condition.messageSizeExceeded, `The batch of ${payload.length} bytes exceeds ${MAX_MESSAGE_SIZE}.`);
        }
        messages = decodeBatch(payload);
      } else if (format === undefined || format === 0) {
        messages = [ctx.message as AmqpMessage];
      } else {
        throw new BrokerError(Condition.notImplemented, `Unsupported message format ${format}.`);
      }
      // A batch is all-or-nothing: check every message before storing any.
      for (const m of messages) this.queue.assertSendable(m);
      for (const m of messages) this.queue.send(m);
      delivery.accept();
    } catch (err) {
      const e = asBrokerError(err);
      delivery.reject({ condition: e.condition, description: e.message });
    }
  }

  abort(error: { condition: string; description: string }): void {
    if (!linkGone(this.receiver)) this.receiver.close(error);
  }

  onClose(): void {}
}

export function attachProducer(connection: Connection, receiver: Receiver, namespace: Namespace, links: LinkRegistry): void {
  const attach = localAttach(receiver);
  attach.snd_settle_mode = receiver.snd_settle_mode;
  attach.rcv_settle_mode = receiver.rcv_settle_mode;
  attach.max_message_size = MAX_MESSAGE_SIZE;
  echoTermini(receiver);
  const address = (receiver.target as { address?: string } | null)?.address ?? "";
  try {
    const { entity } = namespace.resolve(address);
    if (entity.isDeadLetter) {
      throw new BrokerError(Condition.notAllowed, `Cannot send to ${entity.name}; messages reach it only by being dead-lettered.`);
    }
    links.register(connection, receiver, new ProducerLink(receiver, entity));
  } catch (err) {
    const e = asBrokerError(err);
    refuseAttach(receiver, { condition: e.condition, description: e.message });
  }
}
