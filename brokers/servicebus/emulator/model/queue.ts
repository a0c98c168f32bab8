// A queue (or its dead-letter sub-queue): message storage, sequence numbers, delivery order,
// locks and every step of the message lifecycle. Knows nothing about AMQP; the protocol layer
// calls it and registers consumers that it feeds.
import { randomUUID } from "node:crypto";
import type { Message as AmqpMessage } from "rhea";
import type { QueueProperties } from "../config.ts";
import { BrokerError, Condition } from "./errors.ts";
import { MinHeap } from "./heap.ts";
import { byOrder, type MessageLock, type StoredMessage } from "./message.ts";
import { DuplicateDetector } from "./duplicates.ts";
import { MessageSession, SessionRegistry, type SessionOwner } from "./sessions.ts";
import {
  deadLetterCopy,
  MAX_DELIVERY_REASON,
  maxDeliveryDescription,
  TTL_EXPIRED_DESCRIPTION,
  TTL_EXPIRED_REASON,
  withApplicationProperties,
  type DeadLetterDetails,
} from "./deadLetter.ts";

export type ReceiveMode = "peekLock" | "receiveAndDelete";

/** A receiver link fed by the queue (non-session receivers; session receivers are SessionOwners). */
export interface Consumer {
  readonly linkName: string;
  /** How many more messages the link can take now (its credit minus transfers still queued). */
  capacity(): number;
  /** Take ownership of a message just removed from the ready set (lock it or delete it). */
  deliver(message: StoredMessage): void;
}

export interface SendResult {
  sequenceNumber: number | undefined;
  duplicate: boolean;
}

export interface QueueStats {
  name: string;
  active: number;
  locked: number;
  deferred: number;
  scheduled: number;
  deadLetter: number;
  sessions: number;
}

const SCHEDULED_ANNOTATION = "x-opt-scheduled-enqueue-time";
const SWEEP_INTERVAL_MS = 250;
export const DEAD_LETTER_SUFFIX = "/$DeadLetterQueue";

function toMillis(value: unknown): number | undefined {
  if (value instanceof Date) return value.getTime();
  if (typeof value === "number") return value;
  return undefined;
}

function messageIdText(id: unknown): string | undefined {
  if (id === undefined || id === null) return undefined;
  if (Buffer.isBuffer(id)) return id.toString("hex");
  return String(id);
}

export class QueueEntity {
  readonly deadLetterQueue: QueueEntity | undefined;
  readonly sessions: SessionRegistry | undefined;
  private readonly messages = new Map<number, StoredMessage>();
  private readonly ready = new MinHeap<StoredMessage>(byOrder);
  private readonly locks = new Map<string, StoredMessage>();
  private readonly scheduleTimers = new Map<number, NodeJS.Timeout>();
  private readonly dedup: DuplicateDetector | undefined;
  private consumers: Consumer[] = [];
  private roundRobin = 0;
  private dispatchQueued = false;
  private readonly pendingOffers = new Set<MessageSession>();
  private readonly sweepTimer: NodeJS.Timeout | undefined;
  /** No unlocked message expires before this instant, so sweeps before it can be skipped. */
  private nextExpiry = Infinity;
  private nextSeq = 1;
  private nextOrder = 1;
  private closed = false;

  constructor(
    readonly name: string,
    readonly props: QueueProperties,
    readonly isDeadLetter = false,
  ) {
    if (isDeadLetter) return;
    this.deadLetterQueue = new QueueEntity(`${name}${DEAD_LETTER_SUFFIX}`, props, true);
    if (props.requiresSession) {
      this.sessions = new SessionRegistry(props.lockDurationMs, (s) => this.onSessionLockExpired(s));
    }
    if (props.requiresDuplicateDetection) this.dedup = new DuplicateDetector(props.duplicateDetectionWindowMs);
    this.sweepTimer = setInterval(() => this.sweepExpired(), SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  get requiresSession(): boolean {
    return this.sessions !== undefined;
  }

  // ---------------------------------------------------------------- intake

  /** Stores a message sent by a client; scheduled messages wait for their enqueue time. */
  /** Throws the error send() would throw, without storing anything (batches are all-or-nothing). */
  assertSendable(amqp: AmqpMessage): void {
    this.assertOpen();
    if (this.isDeadLetter) {
      throw new BrokerError(Condition.notAllowed, `Messages cannot be sent to ${this.name}; dead-letter them instead.`);
    }
    if (this.requiresSession && typeof amqp.group_id !== "string") {
      throw new BrokerError(
        Condition.notAllowed,
        `The SessionId was not set on a message, and it cannot be sent to the entity. Entities that have session support enabled can only receive messages that have the SessionId set to a valid value.`,
      );
    }
  }

  send(amqp: AmqpMessage, now = Date.now()): SendResult {
    this.assertSendable(amqp);
    const sessionId = typeof amqp.group_id === "string" ? amqp.group_id : undefined;
    // The service stamps a MessageId when the client sent none; the SDK's lock renewer keys on it.
    let messageId = messageIdText(amqp.message_id);
    if (messageId === undefined) {
      messageId = randomUUID().replace(/-/g, "");
      amqp.message_id = messageId;
    }
    if (this.dedup?.isDuplicate(messageId, now)) return { sequenceNumber: undefined, duplicate: true };

    const ttlMs = Math.min(typeof amqp.ttl === "number" && amqp.ttl > 0 ? amqp.ttl : Infinity, this.props.defaultMessageTtlMs);
    const scheduledAt = toMillis(amqp.message_annotations?.[SCHEDULED_ANNOTATION]);
    const seq = this.nextSeq++;
    const msg: StoredMessage = {
      seq,
      order: seq,
      messageId,
      sessionId,
      amqp,
      enqueuedAt: now,
      expiresAt: now + ttlMs,
      ttlMs,
      deliveryCount: 0,
      state: "active",
      scheduledAt: undefined,
      lock: undefined,
      inReady: false,
    };
    this.store(msg);
    if (scheduledAt !== undefined && scheduledAt > now) {
      msg.state = "scheduled";
      msg.scheduledAt = scheduledAt;
      const timer = setTimeout(() => this.activateScheduled(seq), scheduledAt - now);
      timer.unref();
      this.scheduleTimers.set(seq, timer);
    } else {
      this.makeReady(msg);
    }
    return { sequenceNumber: seq, duplicate: false };
  }

  /** Cancels scheduled messages; unknown or already enqueued sequence numbers are an error. */
  cancelScheduled(sequenceNumbers: number[]): void {
    for (const seq of sequenceNumbers) {
      const msg = this.messages.get(seq);
      if (!msg || msg.state !== "scheduled") {
        throw new BrokerError(Condition.messageNotFound, `No scheduled message with sequence number ${seq}.`);
      }
    }
    for (const seq of sequenceNumbers) this.deleteMessage(this.messages.get(seq) as StoredMessage);
  }

  private activateScheduled(seq: number): void {
    this.scheduleTimers.delete(seq);
    const msg = this.messages.get(seq);
    if (!msg || msg.state !== "scheduled") return;
    const now = Date.now();
    msg.state = "active";
    msg.enqueuedAt = now;
    msg.expiresAt = now + msg.ttlMs;
    this.nextExpiry = Math.min(this.nextExpiry, msg.expiresAt);
    this.makeReady(msg);
  }

  /** Receives a message being dead-lettered from the parent queue (this is the DLQ). */
  private acceptDeadLetter(original: StoredMessage, details: DeadLetterDetails): void {
    const msg = deadLetterCopy(original, details, this.nextOrder++);
    this.store(msg);
    this.makeReady(msg);
  }

  private store(msg: StoredMessage): void {
    this.messages.set(msg.seq, msg);
    if (!this.isDeadLetter) this.nextExpiry = Math.min(this.nextExpiry, msg.expiresAt);
    const session = this.sessionOf(msg);
    if (session) session.messageCount++;
  }

  // ---------------------------------------------------------------- delivery

  /** Pops the next deliverable message (of `session`, or of the queue), expiring stale ones on the way. */
  takeReady(session?: MessageSession): StoredMessage | undefined {
    const heap = session ? session.ready : this.ready;
    const now = Date.now();
    for (;;) {
      const msg = heap.pop();
      if (!msg) return undefined;
      if (!msg.inReady) continue;
      msg.inReady = false;
      if (this.isExpired(msg, now)) {
        this.expire(msg);
        continue;
      }
      return msg;
    }
  }

  /** Locks a message for a peek-lock delivery. Session messages share their session's lock. */
  lockForDelivery(msg: StoredMessage, linkName: string | undefined): MessageLock {
    const session = this.sessionOf(msg);
    const lock: MessageLock = { token: randomUUID(), linkName, session, until: 0, timer: undefined };
    if (session) {
      session.locked.add(msg);
    } else {
      lock.until = Date.now() + this.props.lockDurationMs;
      lock.timer = this.lockTimer(msg, lock.token);
    }
    msg.lock = lock;
    this.locks.set(lock.token, msg);
    return lock;
  }

  /** Receive-and-delete: the message is gone once handed out. */
  removeDelivered(msg: StoredMessage): void {
    this.deleteMessage(msg);
  }

  // ---------------------------------------------------------------- settlement (by lock token)

  complete(token: string): void {
    const msg = this.resolveLock(token);
    this.deleteMessage(msg);
  }

  abandon(token: string, properties?: Record<string, unknown>): void {
    const msg = this.resolveLock(token);
    this.endLock(msg);
    msg.amqp = withApplicationProperties(msg.amqp, properties);
    this.failedDelivery(msg);
  }

  defer(token: string, properties?: Record<string, unknown>): void {
    const msg = this.resolveLock(token);
    this.endLock(msg);
    msg.amqp = withApplicationProperties(msg.amqp, properties);
    msg.state = "deferred";
  }

  deadLetter(token: string, details: DeadLetterDetails): void {
    const msg = this.resolveLock(token);
    if (this.isDeadLetter) {
      throw new BrokerError(Condition.notAllowed, `A message in ${this.name} cannot be dead-lettered again.`);
    }
    this.moveToDeadLetter(msg, details);
  }

  /** AMQP "released": the client gives the message back without it counting as a failed delivery. */
  release(token: string): void {
    const msg = this.resolveLock(token);
    this.endLock(msg);
    this.returnToAvailable(msg);
  }

  renewLock(token: string): number {
    const msg = this.resolveLock(token);
    const lock = msg.lock as MessageLock;
    if (lock.session) {
      throw new BrokerError(Condition.notAllowed, "Session messages are locked by their session; renew the session lock.");
    }
    if (lock.timer) clearTimeout(lock.timer);
    lock.until = Date.now() + this.props.lockDurationMs;
    lock.timer = this.lockTimer(msg, token);
    return lock.until;
  }

  /** The locked message behind a token, or the lock-lost error the service gives. */
  private resolveLock(token: string): StoredMessage {
    this.assertOpen();
    const msg = this.locks.get(token);
    if (!msg || !msg.lock) {
      if (this.requiresSession) {
        throw new BrokerError(Condition.sessionLockLost, `The session lock was lost for lock token ${token}.`);
      }
      throw new BrokerError(
        Condition.messageLockLost,
        `The lock supplied is invalid. Either the lock expired, or the message has already been removed from the queue. Reference:${token}`,
      );
    }
    if (!msg.lock.session && msg.lock.until <= Date.now()) {
      this.onLockExpired(msg, token);
      return this.resolveLock(token);
    }
    return msg;
  }

  private lockTimer(msg: StoredMessage, token: string): NodeJS.Timeout {
    const timer = setTimeout(() => this.onLockExpired(msg, token), this.props.lockDurationMs);
    timer.unref();
    return timer;
  }

  private onLockExpired(msg: StoredMessage, token: string): void {
    if (msg.lock?.token !== token) return;
    this.endLock(msg);
    this.failedDelivery(msg);
  }

  private endLock(msg: StoredMessage): void {
    const lock = msg.lock;
    if (!lock) return;
    if (lock.timer) clearTimeout(lock.timer);
    this.locks.delete(lock.token);
    lock.session?.locked.delete(msg);
    msg.lock = undefined;
  }

  /** Abandon or lock expiry: count the attempt, then dead-letter or make the message available again. */
  private failedDelivery(msg: StoredMessage): void {
    msg.deliveryCount++;
    if (!this.isDeadLetter && msg.deliveryCount >= this.props.maxDeliveryCount) {
      this.moveToDeadLetter(msg, {
        reason: MAX_DELIVERY_REASON,
        description: maxDeliveryDescription(this.props.maxDeliveryCount),
      });
      return;
    }
    this.returnToAvailable(msg);
  }

  private returnToAvailable(msg: StoredMessage): void {
    if (msg.state === "deferred") return;
    if (this.isExpired(msg, Date.now())) {
      this.expire(msg);
      return;
    }
    this.makeReady(msg);
  }

  private moveToDeadLetter(msg: StoredMessage, details: DeadLetterDetails): void {
    this.deleteMessage(msg);
    this.deadLetterQueue?.acceptDeadLetter(msg, details);
  }

  private isExpired(msg: StoredMessage, now: number): boolean {
    return !this.isDeadLetter && msg.expiresAt <= now;
  }

  private expire(msg: StoredMessage): void {
    if (this.props.deadLetteringOnMessageExpiration) {
      this.moveToDeadLetter(msg, { reason: TTL_EXPIRED_REASON, description: TTL_EXPIRED_DESCRIPTION });
    } else {
      this.deleteMessage(msg);
    }
  }

  /** Expires messages that sit unlocked past their time-to-live (locked ones expire when released). */
  sweepExpired(now = Date.now()): void {
    if (this.isDeadLetter || now < this.nextExpiry) return;
    let next = Infinity;
    for (const msg of this.messages.values()) {
      if (msg.state === "scheduled") continue;
      if (msg.expiresAt <= now && !msg.lock) this.expire(msg);
      else next = Math.min(next, msg.expiresAt);
    }
    this.nextExpiry = next;
  }

  private deleteMessage(msg: StoredMessage): void {
    this.endLock(msg);
    const timer = this.scheduleTimers.get(msg.seq);
    if (timer) {
      clearTimeout(timer);
      this.scheduleTimers.delete(msg.seq);
    }
    if (this.messages.get(msg.seq) !== msg) return;
    this.messages.delete(msg.seq);
    msg.inReady = false;
    const session = this.sessionOf(msg);
    if (session) {
      session.messageCount--;
      this.sessions?.forgetIfIdle(session);
    }
  }

  private makeReady(msg: StoredMessage): void {
    msg.inReady = true;
    const session = this.sessionOf(msg);
    if (session) {
      session.ready.push(msg);
      this.pendingOffers.add(session);
    } else {
      this.ready.push(msg);
    }
    this.scheduleDispatch();
  }

  private sessionOf(msg: StoredMessage): MessageSession | undefined {
    if (!this.sessions || msg.sessionId === undefined) return undefined;
    return this.sessions.getOrCreate(msg.sessionId);
  }

  // ---------------------------------------------------------------- deferred messages

  /** receive-by-sequence-number: hands out deferred messages (locked, or deleted in receive-and-delete). */
  receiveDeferred(
    sequenceNumbers: number[],
    mode: ReceiveMode,
    linkName: string | undefined,
    sessionId: string | undefined,
  ): Array<{ message: StoredMessage; lock: MessageLock | undefined }> {
    this.assertOpen();
    if (this.sessions) {
      if (sessionId === undefined) {
        throw new BrokerError(Condition.notAllowed, "A session id is required to receive deferred messages of a session queue.");
      }
      this.sessions.assertHeld(sessionId, linkName);
    }
    const found = sequenceNumbers.map((seq) => {
      const msg = this.messages.get(seq);
      if (!msg || msg.state !== "deferred" || msg.lock || (this.sessions && msg.sessionId !== sessionId)) {
        throw new BrokerError(
          Condition.messageNotFound,
          `Failed to lock one or more specified messages. Either the message with sequence number ${seq} is not deferred or it is already locked.`,
        );
      }
      return msg;
    });
    return found.map((message) => {
      if (mode === "receiveAndDelete") {
        this.deleteMessage(message);
        return { message, lock: undefined };
      }
      return { message, lock: this.lockForDelivery(message, linkName) };
    });
  }

  // ---------------------------------------------------------------- browsing

  /** Messages with sequence number >= fromSeq in sequence order (any state, locked or not). */
  peek(fromSeq: number, count: number, sessionId?: string): StoredMessage[] {
    this.assertOpen();
    this.sweepExpired();
    const out: StoredMessage[] = [];
    for (const msg of this.messages.values()) {
      if (msg.seq >= fromSeq && (sessionId === undefined || msg.sessionId === sessionId)) out.push(msg);
    }
    out.sort((a, b) => a.seq - b.seq);
    return out.slice(0, count);
  }

  stats(): QueueStats {
    let active = 0;
    let locked = 0;
    let deferred = 0;
    let scheduled = 0;
    for (const m of this.messages.values()) {
      if (m.lock) locked++;
      else if (m.state === "active") active++;
      else if (m.state === "deferred") deferred++;
      else scheduled++;
    }
    let sessions = 0;
    if (this.sessions) for (const _ of this.sessions.values()) sessions++;
    return {
      name: this.name,
      active,
      locked,
      deferred,
      scheduled,
      deadLetter: this.deadLetterQueue ? this.deadLetterQueue.messages.size : 0,
      sessions,
    };
  }

  // ---------------------------------------------------------------- sessions

  private requireSessions(): SessionRegistry {
    if (!this.sessions) {
      throw new BrokerError(Condition.notAllowed, `The queue ${this.name} does not have sessions enabled.`);
    }
    return this.sessions;
  }

  /** Locks a named session; undefined when another receiver holds it. */
  acceptSession(sessionId: string, owner: SessionOwner): MessageSession | undefined {
    return this.requireSessions().tryLock(sessionId, owner);
  }

  /** Locks the next session with ready messages, or parks the owner until one appears. */
  acceptNextSession(
    owner: SessionOwner,
    onGranted: (session: MessageSession) => void,
  ): { session: MessageSession | undefined; cancel: () => void } {
    const registry = this.requireSessions();
    const session = registry.lockNextAvailable(owner);
    if (session) return { session, cancel: () => undefined };
    return { session: undefined, cancel: registry.wait(owner, onGranted) };
  }

  /**
   * The receiver closed (or its connection dropped): the session unlocks at once and its unsettled
   * messages return to the head of the session without their delivery count being raised.
   */
  releaseSession(session: MessageSession, owner: SessionOwner): void {
    if (session.owner !== owner) return;
    for (const msg of [...session.locked]) {
      this.endLock(msg);
      this.returnToAvailable(msg);
    }
    this.sessions?.unlock(session);
  }

  /** Session lock expired: unsettled messages count a failed delivery, and the holder is cut off. */
  private onSessionLockExpired(session: MessageSession): void {
    const owner = session.owner;
    if (!owner) return;
    session.owner = undefined;
    for (const msg of [...session.locked]) {
      this.endLock(msg);
      this.failedDelivery(msg);
    }
    owner.lockLost();
    this.sessions?.unlock(session);
  }

  renewSessionLock(sessionId: string, linkName?: string): number {
    const registry = this.requireSessions();
    return registry.renew(registry.assertHeld(sessionId, linkName));
  }

  getSessionState(sessionId: string, linkName?: string): Buffer | null {
    return this.requireSessions().assertHeld(sessionId, linkName).state;
  }

  setSessionState(sessionId: string, state: Buffer | null, linkName?: string): void {
    const registry = this.requireSessions();
    registry.assertHeld(sessionId, linkName).state = state;
  }

  // ---------------------------------------------------------------- consumers

  addConsumer(consumer: Consumer): void {
    this.consumers.push(consumer);
    this.scheduleDispatch();
  }

  removeConsumer(consumer: Consumer): void {
    this.consumers = this.consumers.filter((c) => c !== consumer);
  }

  /** Deliveries happen on a later tick so model operations never re-enter a link handler. */
  scheduleDispatch(): void {
    if (this.dispatchQueued || this.closed) return;
    this.dispatchQueued = true;
    setImmediate(() => {
      this.dispatchQueued = false;
      if (!this.closed) this.dispatch();
    });
  }

  private dispatch(): void {
    // Round-robin, one message per consumer per turn, so competing receivers share the queue.
    const n = this.consumers.length;
    const room = this.consumers.map((c) => c.capacity());
    let idle = 0;
    let i = this.roundRobin;
    while (n > 0 && idle < n) {
      const k = i % n;
      i++;
      if (room[k] <= 0) {
        idle++;
        continue;
      }
      const msg = this.takeReady();
      if (!msg) break;
      this.consumers[k].deliver(msg);
      room[k]--;
      idle = 0;
    }
    this.roundRobin = n > 0 ? i % n : 0;
    if (this.sessions) {
      const offers = [...this.pendingOffers];
      this.pendingOffers.clear();
      for (const s of offers) this.sessions.offer(s);
    }
  }

  // ---------------------------------------------------------------- lifecycle

  private assertOpen(): void {
    if (this.closed) throw new BrokerError(Condition.notFound, `The messaging entity '${this.name}' could not be found.`);
  }

  close(): void {
    this.closed = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    for (const t of this.scheduleTimers.values()) clearTimeout(t);
    for (const m of this.messages.values()) if (m.lock?.timer) clearTimeout(m.lock.timer);
    this.sessions?.close();
    this.deadLetterQueue?.close();
    this.consumers = [];
  }
}
