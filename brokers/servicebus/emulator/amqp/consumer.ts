// A client's receiver link: feeds it messages within its credit, answers drain requests, and
// turns the client's dispositions into complete / abandon / defer / dead-letter.
import type { AmqpError, Delivery, Sender } from "rhea";
import { asBrokerError, Condition } from "../model/errors.ts";
import type { StoredMessage } from "../model/message.ts";
import type { Consumer, QueueEntity, ReceiveMode } from "../model/queue.ts";
import type { MessageSession, SessionOwner } from "../model/sessions.ts";
import { encodeStoredMessage, lockTokenTag } from "./codec.ts";
import { outcomes, type LinkHandler, type Outcome } from "./links.ts";
import { completeDrain, credit, linkGone, queuedTransfers, settle } from "./rheaInternals.ts";

const DEAD_LETTER_CONDITION = "com.microsoft:dead-letter";

interface ModifiedState {
  undeliverable_here?: boolean;
  message_annotations?: Record<string, unknown>;
}
interface RejectedState {
  error?: { condition?: string; description?: string; info?: Record<string, unknown> };
}

export class ConsumerLink implements Consumer, SessionOwner, LinkHandler {
  readonly linkName: string;
  private session: MessageSession | undefined;
  private started = false;
  private closed = false;
  private readonly lockTokens = new WeakMap<Delivery, string>();
  private readonly closeHooks: Array<() => void> = [];

  constructor(
    private readonly sender: Sender,
    readonly queue: QueueEntity,
    /** The entity read from: the queue or its dead-letter queue. */
    private readonly entity: QueueEntity,
    private readonly mode: ReceiveMode,
  ) {
    this.linkName = sender.name;
  }

  /** Begins delivering; session receivers read only their session. */
  start(session?: MessageSession): void {
    this.session = session;
    this.started = true;
    if (!session) this.entity.addConsumer(this);
    this.pump();
  }

  capacity(): number {
    if (this.closed || !this.started || linkGone(this.sender)) return 0;
    return credit(this.sender) - queuedTransfers(this.sender);
  }

  deliver(msg: StoredMessage): void {
    if (this.mode === "receiveAndDelete") {
      this.entity.removeDelivered(msg);
      this.sender.send(encodeStoredMessage(msg), undefined, 0);
      return;
    }
    const lock = this.entity.lockForDelivery(msg, this.linkName);
    const delivery = this.sender.send(encodeStoredMessage(msg, lock), lockTokenTag(lock.token), 0);
    this.lockTokens.set(delivery, lock.token);
  }

  pump(): void {
    let room = this.capacity();
    while (room-- > 0) {
      const msg = this.entity.takeReady(this.session);
      if (!msg) return;
      this.deliver(msg);
    }
  }

  onCredit(): void {
    this.pump();
  }

  onDrain(): void {
    this.pump();
    completeDrain(this.sender);
  }

  onOutcome(delivery: Delivery, outcome: Outcome): void {
    const token = this.lockTokens.get(delivery);
    if (token === undefined) {
      settle(delivery, outcomes.accepted());
      return;
    }
    try {
      const state = delivery.remote_state as unknown;
      switch (outcome) {
        case "accepted":
          this.entity.complete(token);
          break;
        case "modified": {
          const m = state as ModifiedState;
          // The SDK sends abandon as modified{undeliverable_here:false} and defer as {undeliverable_here:true}.
          if (m.undeliverable_here) this.entity.defer(token, m.message_annotations);
          else this.entity.abandon(token, m.message_annotations);
          break;
        }
        case "rejected": {
          const error = (state as RejectedState).error;
          const info = { ...(error?.info ?? {}) };
          const reason = info.DeadLetterReason as string | undefined;
          const description = info.DeadLetterErrorDescription as string | undefined;
          delete info.DeadLetterReason;
          delete info.DeadLetterErrorDescription;
          if (error?.condition !== undefined && error.condition !== DEAD_LETTER_CONDITION) {
            // A plain AMQP reject: the service treats it as a dead-letter with the error as reason.
            this.entity.deadLetter(token, { reason: error.condition, description: error.description });
          } else {
            this.entity.deadLetter(token, { reason, description, properties: info });
          }
          break;
        }
        case "released":
          this.entity.release(token);
          break;
      }
      settle(delivery, outcomes.accepted());
    } catch (err) {
      const e = asBrokerError(err);
      settle(delivery, outcomes.rejected({ condition: e.condition, description: e.message }));
    }
  }

  /** The session lock expired: the service detaches the receiver with session-lock-lost. */
  lockLost(): void {
    this.abort({
      condition: Condition.sessionLockLost,
      description: `The session lock has expired on the session with id ${this.session?.id}.`,
    });
    this.onClose();
  }

  abort(error: AmqpError): void {
    if (!linkGone(this.sender)) this.sender.close(error);
  }

  /** Runs `hook` when the link goes away (used to stop an accept-next-session wait). */
  onClosed(hook: () => void): void {
    this.closeHooks.push(hook);
  }

  onClose(): void {
    if (this.closed) return;
    this.closed = true;
    for (const hook of this.closeHooks) hook();
    this.entity.removeConsumer(this);
    if (this.session) this.entity.releaseSession(this.session, this);
  }
}
