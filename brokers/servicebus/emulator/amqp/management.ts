// The <entity>/$management request link: decodes a request, runs the operation, and replies on
// the client's reply link with the status in camelCase application properties (what the SDK reads).
import type { AmqpError, Connection, EventContext, Receiver } from "rhea";
import { asBrokerError, STATUS_BY_CONDITION } from "../model/errors.ts";
import type { QueueEntity } from "../model/queue.ts";
import type { LinkHandler } from "./links.ts";
import { runOperation } from "./managementOps.ts";
import type { ReplyLinks } from "./replies.ts";
import { linkGone } from "./rheaInternals.ts";

const DESCRIPTIONS: Record<number, string> = { 200: "OK", 202: "Accepted", 204: "No Content" };

export class ManagementLink implements LinkHandler {
  constructor(
    private readonly connection: Connection,
    private readonly receiver: Receiver,
    readonly queue: QueueEntity,
    private readonly entity: QueueEntity,
    private readonly replies: ReplyLinks,
  ) {}

  onMessage(ctx: EventContext): void {
    const request = ctx.message;
    ctx.delivery?.accept();
    if (!request) return;
    const props = (request.application_properties ?? {}) as Record<string, unknown>;
    const operation = props.operation as string | undefined;
    const linkName = props["associated-link-name"] as string | undefined;
    let status: number;
    let description: string;
    let condition: string | undefined;
    let body: Record<string, unknown> | undefined;
    try {
      const result = runOperation(operation, {
        entity: this.entity,
        body: (request.body ?? {}) as Record<string, unknown>,
        linkName,
      });
      status = result.status;
      description = DESCRIPTIONS[status] ?? "OK";
      body = result.body;
    } catch (err) {
      const e = asBrokerError(err);
      status = STATUS_BY_CONDITION[e.condition];
      description = e.message;
      condition = e.condition;
    }
    this.replies.send(this.connection, request.reply_to, {
      correlation_id: request.message_id,
      application_properties: {
        statusCode: status,
        statusDescription: description,
        ...(condition ? { errorCondition: condition } : {}),
      },
      ...(body ? { body } : {}),
    });
  }

  abort(error: AmqpError): void {
    if (!linkGone(this.receiver)) this.receiver.close(error);
  }

  onClose(): void {}
}
