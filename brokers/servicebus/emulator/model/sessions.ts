// Message sessions of one session-enabled queue: per-session FIFO, the exclusive session lock,
// session state, and receivers waiting for "the next available session".
import { MinHeap } from "./heap.ts";
import { byOrder, type SessionLock, type StoredMessage } from "./message.ts";
import { BrokerError, Condition } from "./errors.ts";

/** The receiver link that holds (or waits for) a session lock. */
export interface SessionOwner {
  readonly linkName: string;
  /** Deliver what the session has ready, as far as link credit allows. */
  pump(): void;
  /** The session lock expired; the owner must detach its link with session-lock-lost. */
  lockLost(): void;
}

export class MessageSession implements SessionLock {
  readonly ready = new MinHeap<StoredMessage>(byOrder);
  /** Messages delivered in peek-lock under this session's lock and not yet settled. */
  readonly locked = new Set<StoredMessage>();
  /** Messages of this session still stored (any state); the session is forgotten at zero. */
  messageCount = 0;
  state: Buffer | null = null;
  owner: SessionOwner | undefined;
  lockedUntil = 0;
  timer: NodeJS.Timeout | undefined;

  constructor(readonly id: string) {}

  /** The oldest message ready for delivery, skipping stale heap entries. */
  head(): StoredMessage | undefined {
    return this.ready.peekValid((m) => m.inReady);
  }
}

interface Waiter {
  readonly owner: SessionOwner;
  readonly grant: (session: MessageSession) => void;
}

export class SessionRegistry {
  private readonly sessions = new Map<string, MessageSession>();
  private waiters: Waiter[] = [];

  constructor(
    private readonly lockDurationMs: number,
    private readonly onLockExpired: (session: MessageSession) => void,
  ) {}

  get(id: string): MessageSession | undefined {
    return this.sessions.get(id);
  }

  getOrCreate(id: string): MessageSession {
    let s = this.sessions.get(id);
    if (!s) {
      s = new MessageSession(id);
      this.sessions.set(id, s);
    }
    return s;
  }

  values(): IterableIterator<MessageSession> {
    return this.sessions.values();
  }

  /** Locks the named session for `owner`; undefined when another receiver holds it. */
  tryLock(id: string, owner: SessionOwner): MessageSession | undefined {
    const s = this.getOrCreate(id);
    if (s.owner && s.owner !== owner) return undefined;
    this.lock(s, owner);
    return s;
  }

  /** Locks the unlocked session whose oldest ready message is oldest, if any has one. */
  lockNextAvailable(owner: SessionOwner): MessageSession | undefined {
    let best: MessageSession | undefined;
    let bestOrder = Infinity;
    for (const s of this.sessions.values()) {
      if (s.owner) continue;
      const head = s.head();
      if (head && head.order < bestOrder) {
        best = s;
        bestOrder = head.order;
      }
    }
    if (best) this.lock(best, owner);
    return best;
  }

  /** Parks a receiver until some session gets ready messages; returns a cancel function. */
  wait(owner: SessionOwner, grant: (session: MessageSession) => void): () => void {
    const waiter: Waiter = { owner, grant };
    this.waiters.push(waiter);
    return () => {
      this.waiters = this.waiters.filter((w) => w !== waiter);
    };
  }

  /** Throws session-lock-lost unless the session is locked (by `linkName`, when given). */
  assertHeld(id: string, linkName?: string): MessageSession {
    const s = this.sessions.get(id);
    if (!s || !s.owner || s.lockedUntil <= Date.now() || (linkName !== undefined && s.owner.linkName !== linkName)) {
      throw new BrokerError(
        Condition.sessionLockLost,
        `The session lock has expired on the session with id ${id}, or the session is not locked by this receiver.`,
      );
    }
    return s;
  }

  renew(session: MessageSession): number {
    this.startTimer(session);
    return session.lockedUntil;
  }

  /** Drops the session lock (the caller has already dealt with the session's locked messages). */
  unlock(session: MessageSession): void {
    if (session.timer) clearTimeout(session.timer);
    session.timer = undefined;
    session.owner = undefined;
    session.lockedUntil = 0;
    this.offer(session);
    this.forgetIfIdle(session);
  }

  /** Called when a session gains ready messages: wake its owner, or hand it to a waiting receiver. */
  offer(session: MessageSession): void {
    if (session.owner) {
      session.owner.pump();
      return;
    }
    if (this.waiters.length === 0 || !session.head()) return;
    const waiter = this.waiters.shift() as Waiter;
    this.lock(session, waiter.owner);
    waiter.grant(session);
  }

  forgetIfIdle(session: MessageSession): void {
    if (session.messageCount === 0 && session.state === null && !session.owner) this.sessions.delete(session.id);
  }

  close(): void {
    for (const s of this.sessions.values()) if (s.timer) clearTimeout(s.timer);
    this.waiters = [];
  }

  private lock(session: MessageSession, owner: SessionOwner): void {
    session.owner = owner;
    this.startTimer(session);
  }

  private startTimer(session: MessageSession): void {
    if (session.timer) clearTimeout(session.timer);
    session.lockedUntil = Date.now() + this.lockDurationMs;
    session.timer = setTimeout(() => {
      session.timer = undefined;
      this.onLockExpired(session);
    }, this.lockDurationMs);
    session.timer.unref();
  }
}
