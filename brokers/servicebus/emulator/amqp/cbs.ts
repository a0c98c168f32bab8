// $cbs: claims-based security. The SDK puts a SAS token before every link attach; the emulator
// accepts any token (authentication is not what convoy measures).
import type { Connection, EventContext } from "rhea";
import type { LinkHandler } from "./links.ts";
import type { ReplyLinks } from "./replies.ts";

export class CbsLink implements LinkHandler {
  constructor(
    private readonly connection: Connection,
    private readonly replies: ReplyLinks,
  ) {}

  onMessage(ctx: EventContext): void {
    const request = ctx.message;
    ctx.delivery?.accept();
    if (!request) return;
    this.replies.send(this.connection, request.reply_to, {
      correlation_id: request.message_id,
      application_properties: { "status-code": 202, "status-description": "Accepted" },
    });
  }

  onClose(): void {}
}
