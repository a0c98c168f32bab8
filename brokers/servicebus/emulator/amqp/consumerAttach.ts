// Attaching a client's receiver link: plain queue/DLQ receivers, and session receivers that lock
// a named session, or wait for the next available one (long poll, answered on grant or timeout).
import type { Connection, Sender } from "rhea";
import { Condition, asBrokerError } from "../model/errors.ts";
import type { Namespace } from "../model/namespace.ts";
import type { ReceiveMode } from "../model/queue.ts";
import type { MessageSession } from "../model/sessions.ts";
import { ticksLong, toNumber } from "./codec.ts";
import { ConsumerLink } from "./consumer.ts";
import { refuseAttach, type LinkRegistry } from "./links.ts";
import { alwaysEchoDrain, holdAttach, localAttach, releaseAttach } from "./rheaInternals.ts";

const SESSION_FILTER = "com.microsoft:session-filter";
const TIMEOUT_PROPERTY = "com.microsoft:timeout";
const LOCKED_UNTIL_PROPERTY = "com.microsoft:locked-until-utc";
/** The service caps the accept-next-session long poll near this when the client sends no timeout. */
const DEFAULT_ACCEPT_TIMEOUT_MS = 60_000;
/**
 * Answer a little before the client's own timer fires (it starts earlier than ours and the SDK
 * subtracts only ~20-120 ms), so the SDK sees our com.microsoft:timeout, not its own timeout.
 */
function answerDeadline(timeoutMs: number): number {
  return Math.max(0, timeoutMs - Math.min(1000, timeoutMs * 0.1));
}

interface SessionFilter {
  present: boolean;
  id: string | null;
}

function unwrapValue(v: unknown): unknown {
  return v && typeof v === "object" && "value" in (v as object) && !Buffer.isBuffer(v) ? (v as { value: unknown }).value : v;
}

export function readSessionFilter(source: unknown): SessionFilter {
  const filter = (source as { filter?: Record<string, unknown> } | null)?.filter;
  if (!filter || typeof filter !== "object" || !(SESSION_FILTER in filter)) return { present: false, id: null };
  const id = unwrapValue(filter[SESSION_FILTER]);
  return { present: true, id: id === null || id === undefined ? null : String(id) };
}

export function attachConsumer(connection: Connection, sender: Sender, namespace: Namespace, links: LinkRegistry): void {
  const source = sender.source as { address?: string } | null;
  const attach = localAttach(sender);
  // Copy the client's settle modes: snd-settle-mode "settled" means receive-and-delete.
  attach.snd_settle_mode = sender.snd_settle_mode;
  attach.rcv_settle_mode = sender.rcv_settle_mode;
  const mode: ReceiveMode = sender.snd_settle_mode === 1 ? "receiveAndDelete" : "peekLock";
  const target = sender.target as { address?: string } | null;
  if (target?.address !== undefined) sender.set_target({ address: target.address });
  alwaysEchoDrain(sender);

  let resolved;
  try {
    resolved = namespace.resolve(source?.address ?? "");
  } catch (err) {
    const e = asBrokerError(err);
    refuseAttach(sender, { condition: e.condition, description: e.message });
    return;
  }
  const { queue, entity } = resolved;
  const filter = readSessionFilter(source);
  const sessionful = queue.requiresSession && !entity.isDeadLetter;
  if (filter.present !== sessionful) {
    refuseAttach(sender, {
      condition: Condition.notAllowed,
      description: sessionful
        ? `It is not possible for an entity that requires sessions to create a non-sessionful message receiver.`
        : `It is not possible for an entity that does not require sessions to create a sessionful message receiver.`,
    });
    return;
  }

  const consumer = new ConsumerLink(sender, queue, entity, mode);
  if (!filter.present) {
    sender.set_source({ address: source?.address ?? "" });
    links.register(connection, sender, consumer);
    consumer.start();
    return;
  }

  const grant = (session: MessageSession): void => {
    sender.set_source({ address: source?.address, filter: { [SESSION_FILTER]: session.id } } as never);
    attach.properties = { ...(attach.properties ?? {}), [LOCKED_UNTIL_PROPERTY]: ticksLong(session.lockedUntil) };
    consumer.start(session);
  };

  if (filter.id !== null) {
    const session = queue.acceptSession(filter.id, consumer);
    if (!session) {
      refuseAttach(sender, {
        condition: Condition.sessionCannotBeLocked,
        description: `The requested session '${filter.id}' cannot be accepted. It may be locked by another receiver.`,
      });
      return;
    }
    links.register(connection, sender, consumer);
    grant(session);
    return;
  }

  // Accept next available session: answer now if one is ready, else hold the attach.
  const timeoutMs = (() => {
    const raw = unwrapValue(sender.properties?.[TIMEOUT_PROPERTY]);
    try {
      return raw === undefined || raw === null ? DEFAULT_ACCEPT_TIMEOUT_MS : toNumber(raw);
    } catch {
      return DEFAULT_ACCEPT_TIMEOUT_MS;
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  let waiting = false;
  const pending = queue.acceptNextSession(consumer, (session) => {
    waiting = false;
    if (timer) clearTimeout(timer);
    grant(session);
    releaseAttach(sender);
  });
  links.register(connection, sender, consumer);
  if (pending.session) {
    grant(pending.session);
    return;
  }
  waiting = true;
  holdAttach(sender);
  const deadline = answerDeadline(timeoutMs);
  timer = setTimeout(() => {
    if (!waiting) return;
    waiting = false;
    pending.cancel();
    releaseAttach(sender);
    refuseAttach(sender, {
      condition: Condition.timeout,
      description: `The operation did not complete within the allotted timeout of ${timeoutMs} ms. No unlocked session was available.`,
    });
    consumer.onClose();
  }, deadline);
  timer.unref();
  // If the client gives up (or its connection drops) while we hold the attach, stop waiting.
  consumer.onClosed(() => {
    if (!waiting) return;
    waiting = false;
    pending.cancel();
    if (timer) clearTimeout(timer);
  });
}
