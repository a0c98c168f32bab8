// The $management operations of the Service Bus request/response protocol, as functions of the
// addressed entity and the decoded request body. Each returns a status and a reply body.
import { BrokerError, Condition } from "../model/errors.ts";
import type { QueueEntity, ReceiveMode } from "../model/queue.ts";
import { bytesToUuid, decodeMessage, encodeStoredMessage, toNumber, types, uuidToBytes } from "./codec.ts";

export interface OperationRequest {
  entity: QueueEntity;
  body: Record<string, unknown>;
  /** The receiver link the request acts for ("associated-link-name"), when the SDK sends one. */
  linkName: string | undefined;
}

export interface OperationResult {
  status: number;
  body?: Record<string, unknown>;
}

type Operation = (req: OperationRequest) => OperationResult;

const OK = (body?: Record<string, unknown>): OperationResult => ({ status: 200, body });

function list(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  if (typeof value === "object" && "value" in (value as object)) return list((value as { value: unknown }).value);
  return [value];
}

function lockTokens(body: Record<string, unknown>): string[] {
  const tokens = list(body["lock-tokens"]).map((t) => (Buffer.isBuffer(t) ? bytesToUuid(t) : String(t)));
  if (tokens.length === 0) throw new BrokerError(Condition.argumentError, "lock-tokens is required.");
  return tokens;
}

function sessionId(body: Record<string, unknown>, required: true): string;
function sessionId(body: Record<string, unknown>, required: false): string | undefined;
function sessionId(body: Record<string, unknown>, required: boolean): string | undefined {
  const id = body["session-id"];
  if (id === undefined || id === null) {
    if (required) throw new BrokerError(Condition.argumentError, "session-id is required.");
    return undefined;
  }
  return String(id);
}

function sequenceNumbers(body: Record<string, unknown>): number[] {
  return list(body["sequence-numbers"]).map(toNumber);
}

function stringMap(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === "object" && !Buffer.isBuffer(value) ? (value as Record<string, unknown>) : undefined;
}

const operations: Record<string, Operation> = {
  "com.microsoft:renew-lock": ({ entity, body }) => {
    const expirations = lockTokens(body).map((t) => entity.renewLock(t));
    return OK({ expirations: types.wrap_array(expirations, 0x83, undefined) });
  },

  "com.microsoft:peek-message": ({ entity, body }) => {
    const from = toNumber(body["from-sequence-number"] ?? 1);
    const count = toNumber(body["message-count"] ?? 1);
    const found = entity.peek(from, count, sessionId(body, false));
    if (found.length === 0) return { status: 204 };
    return OK({ messages: found.map((m) => ({ message: encodeStoredMessage(m) })) });
  },

  "com.microsoft:receive-by-sequence-number": ({ entity, body, linkName }) => {
    const mode: ReceiveMode = toNumber(body["receiver-settle-mode"] ?? 1) === 0 ? "receiveAndDelete" : "peekLock";
    const received = entity.receiveDeferred(sequenceNumbers(body), mode, linkName, sessionId(body, false));
    return OK({
      messages: received.map(({ message, lock }) => ({
        ...(lock ? { "lock-token": types.wrap_uuid(uuidToBytes(lock.token)) } : {}),
        message: encodeStoredMessage(message, lock),
      })),
    });
  },

  "com.microsoft:update-disposition": ({ entity, body }) => {
    const status = String(body["disposition-status"] ?? "");
    const properties = stringMap(body["properties-to-modify"]);
    for (const token of lockTokens(body)) {
      switch (status) {
        case "completed":
          entity.complete(token);
          break;
        case "abandoned":
          entity.abandon(token, properties);
          break;
        case "defered": // sic: the SDK's spelling
        case "deferred":
          entity.defer(token, properties);
          break;
        case "suspended":
          entity.deadLetter(token, {
            reason: body["deadletter-reason"] as string | undefined,
            description: body["deadletter-description"] as string | undefined,
            properties,
          });
          break;
        default:
          throw new BrokerError(Condition.argumentError, `Unknown disposition-status ${JSON.stringify(status)}.`);
      }
    }
    return OK();
  },

  "com.microsoft:renew-session-lock": ({ entity, body, linkName }) =>
    OK({ expiration: new Date(entity.renewSessionLock(sessionId(body, true), linkName)) }),

  "com.microsoft:get-session-state": ({ entity, body, linkName }) =>
    OK({ "session-state": entity.getSessionState(sessionId(body, true), linkName) }),

  "com.microsoft:set-session-state": ({ entity, body, linkName }) => {
    const state = body["session-state"];
    entity.setSessionState(sessionId(body, true), Buffer.isBuffer(state) ? state : null, linkName);
    return OK();
  },

  "com.microsoft:get-message-sessions": ({ entity, body }) => {
    if (!entity.sessions) throw new BrokerError(Condition.notAllowed, `The queue ${entity.name} does not have sessions.`);
    const skip = toNumber(body.skip ?? 0);
    const top = toNumber(body.top ?? 100);
    const ids = [...entity.sessions.values()].filter((s) => s.messageCount > 0 || s.state !== null).map((s) => s.id);
    const page = ids.slice(skip, skip + top);
    if (page.length === 0) return { status: 204 };
    return OK({ skip: types.wrap_int(skip + page.length), "sessions-ids": page });
  },

  "com.microsoft:schedule-message": ({ entity, body }) => {
    const entries = list(body.messages).map((e) => stringMap(e) ?? {});
    const decoded = entries.map((e) => decodeMessage(e.message as Buffer));
    for (const m of decoded) entity.assertSendable(m);
    const seqs = decoded.map((m) => entity.send(m).sequenceNumber ?? 0);
    return OK({ "sequence-numbers": types.wrap_array(seqs, 0x81, undefined) });
  },

  "com.microsoft:cancel-scheduled-message": ({ entity, body }) => {
    entity.cancelScheduled(sequenceNumbers(body));
    return OK();
  },
};

export function runOperation(name: string | undefined, req: OperationRequest): OperationResult {
  const op = name ? operations[name] : undefined;
  if (!op) throw new BrokerError(Condition.notImplemented, `The operation ${String(name)} is not supported by the emulator.`);
  return op(req);
}
