/**
 * One subscription's messages and leases: what is handed out to which stream, ack deadlines,
 * nacks, the dead-letter and retry policies, and ordering keys with the service's cascade.
 *
 * Each message sits in a lane: its ordering key when the subscription orders messages, else a
 * lane of its own. A lane is its messages in publish order: a delivered prefix (outstanding or
 * acked, the acked head trimmed away) and a ready suffix (`next` points at the first ready one).
 * A lane hands out its ready messages in order, several at once (up to `outstandingPerKey`, 0 =
 * no limit but flow control), all to the stream that holds its outstanding ones (and, when none
 * are outstanding, preferably to the stream that had it last: the service's key affinity).
 *
 * The cascade: when a message of a key is redelivered (nack, or its deadline expired), every
 * later message of that key that was already delivered is made ready again too, acked or not,
 * and its old ack id goes stale. The lane then hands them out again, in order.
 */
export interface StoredMessage {
  data: Buffer;
  attributes: Record<string, string>;
  messageId: string;
  publishTime: { seconds: string; nanos: number };
  orderingKey: string;
}

export interface ReceivedMessage {
  ackId: string;
  message: StoredMessage;
  deliveryAttempt: number;
}

export interface SubscriptionPolicy {
  ordering: boolean;
  ackDeadlineSeconds: number;
  deadLetter?: { topic: string; maxDeliveryAttempts: number };
  retry?: { minimumBackoffMs: number; maximumBackoffMs: number };
  /** Most outstanding messages of one ordering key; 0 = only flow control limits them (the service). */
  outstandingPerKey: number;
}

/** A StreamingPull stream (or one Pull call) that messages are leased to. */
export interface Holder {
  readonly id: string;
  /** Flow control from the stream's first request; 0 = no limit. */
  maxMessages: number;
  maxBytes: number;
  deadlineSeconds: number;
  outstanding: number;
  bytes: number;
  closed: boolean;
  send(messages: ReceivedMessage[]): void;
}

interface Lease {
  ackId: string;
  entry: Entry;
  holder: Holder;
  deadline: number;
}

interface Entry {
  lane: string;
  message: StoredMessage;
  size: number;
  state: 'ready' | 'outstanding' | 'acked';
  /** Deliveries so far. */
  attempts: number;
  /** Not before this time (retry policy backoff). */
  availableAt: number;
  lease?: Lease;
}

interface Lane {
  entries: Entry[];
  /** Index of the first ready entry. */
  next: number;
  outstanding: number;
  holder?: Holder;
  /** The stream that had the key last: it gets the key again while it is open and has room. */
  last?: Holder;
}

export interface SubscriptionStats {
  /** Messages waiting or outstanding (acked ones kept for a cascade not counted). */
  backlog: number;
  outstanding: number;
  delivered: number;
  /** Delivered messages of a key made ready again by an earlier message's redelivery. */
  cascaded: number;
  deadLettered: number;
}

export class SubscriptionState {
  private readonly lanes = new Map<string, Lane>();
  /** Lanes with a ready message, oldest first. */
  private readonly pending = new Set<string>();
  private readonly leases = new Map<string, Lease>();
  private readonly holders: Holder[] = [];
  private rr = 0;
  private seq = 0;
  private ackSeq = 0;
  private readonly stats = { delivered: 0, cascaded: 0, deadLettered: 0 };

  constructor(
    readonly name: string,
    readonly policy: SubscriptionPolicy,
    /** Publishes a message that ran out of delivery attempts to the dead-letter topic. */
    private readonly deadLetter: (topic: string, message: StoredMessage, attempts: number) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Newly published messages, in publish order. */
  add(messages: StoredMessage[]): void {
    for (const message of messages) {
      const lane = this.policy.ordering && message.orderingKey ? `k:${message.orderingKey}` : `m:${++this.seq}`;
      let l = this.lanes.get(lane);
      if (!l) {
        l = { entries: [], next: 0, outstanding: 0 };
        this.lanes.set(lane, l);
      }
      const size = message.data.length + Object.entries(message.attributes).reduce((n, [k, v]) => n + k.length + v.length, 0) + message.orderingKey.length;
      l.entries.push({ lane, message, size, state: 'ready', attempts: 0, availableAt: 0 });
      this.pending.add(lane);
    }
    this.dispatch();
  }

  addHolder(holder: Holder): void {
    this.holders.push(holder);
    this.dispatch();
  }

  /** The stream is gone: what it holds stays leased until its deadline passes. */
  removeHolder(holder: Holder): void {
    holder.closed = true;
    const i = this.holders.indexOf(holder);
    if (i >= 0) this.holders.splice(i, 1);
  }

  acknowledge(ackIds: string[]): void {
    for (const id of ackIds) {
      const lease = this.leases.get(id);
      if (!lease) continue; // stale or unknown: ignored, as without exactly-once delivery
      const entry = lease.entry;
      this.release(lease);
      entry.state = 'acked';
      this.trim(entry.lane);
    }
    this.dispatch();
  }

  /** 0 s = a nack: redelivered now (or after the retry policy's backoff). */
  modifyAckDeadline(ackIds: string[], seconds: number): void {
    for (const id of ackIds) {
      const lease = this.leases.get(id);
      if (!lease) continue;
      if (seconds === 0) this.redeliver(lease.entry);
      else lease.deadline = this.now() + seconds * 1000;
    }
    this.dispatch();
  }

  /** Leases whose deadline passed are redelivered (called on a timer). */
  expire(): void {
    const now = this.now();
    const expired = [...this.leases.values()].filter((l) => l.deadline <= now);
    for (const lease of expired) {
      // A cascade from an earlier expired message may have taken this lease already.
      if (this.leases.get(lease.ackId) === lease) this.redeliver(lease.entry);
    }
    this.dispatch();
  }

  snapshot(): SubscriptionStats {
    let backlog = 0;
    for (const l of this.lanes.values()) backlog += l.entries.filter((e) => e.state !== 'acked').length;
    return { backlog, outstanding: this.leases.size, ...this.stats };
  }

  close(): void {
    for (const h of [...this.holders]) this.removeHolder(h);
    this.lanes.clear();
    this.pending.clear();
    this.leases.clear();
  }

  private release(lease: Lease): void {
    this.leases.delete(lease.ackId);
    lease.entry.lease = undefined;
    lease.holder.outstanding--;
    lease.holder.bytes -= lease.entry.size;
    const l = this.lanes.get(lease.entry.lane)!;
    l.outstanding--;
    if (l.outstanding === 0) l.holder = undefined;
  }

  /** Drops the lane's acked head; a lane with nothing left is gone. */
  private trim(lane: string): void {
    const l = this.lanes.get(lane);
    if (!l) return;
    let n = 0;
    while (n < l.entries.length && l.entries[n]!.state === 'acked') n++;
    if (n > 0) {
      l.entries.splice(0, n);
      l.next -= n;
    }
    if (l.entries.length === 0) {
      this.lanes.delete(lane);
      this.pending.delete(lane);
    }
  }

  /**
   * A nack or an expired deadline. Out of attempts (dead-letter policy): the message goes to the
   * dead-letter topic and its key moves on. Else it is ready again, after the retry backoff,
   * and with ordering so is every later message of its key already delivered (the cascade).
   */
  private redeliver(entry: Entry): void {
    const l = this.lanes.get(entry.lane)!;
    const dl = this.policy.deadLetter;
    if (dl && entry.attempts >= dl.maxDeliveryAttempts) {
      this.release(entry.lease!);
      this.stats.deadLettered++;
      this.deadLetter(dl.topic, entry.message, entry.attempts);
      // Gone from the lane; the key's other messages stay as they are (the key moves on).
      const i = l.entries.indexOf(entry);
      l.entries.splice(i, 1);
      if (i < l.next) l.next--;
      if (l.next < l.entries.length) this.pending.add(entry.lane);
      this.trim(entry.lane);
      return;
    }
    const i = l.entries.indexOf(entry);
    for (let j = i; j < l.entries.length; j++) {
      const e = l.entries[j]!;
      if (e.state === 'ready') break; // the rest was never delivered
      if (e.lease) this.release(e.lease);
      e.state = 'ready';
      if (j > i) this.stats.cascaded++;
    }
    entry.availableAt = this.now() + this.backoffMs(entry.attempts);
    l.next = Math.min(l.next, i);
    this.pending.add(entry.lane);
  }

  /** Retry policy: minimumBackoff doubled per delivery so far, at most maximumBackoff; none without a policy. */
  private backoffMs(attempts: number): number {
    const r = this.policy.retry;
    if (!r) return 0;
    return Math.min(r.maximumBackoffMs, r.minimumBackoffMs * 2 ** Math.max(0, attempts - 1));
  }

  private fits(h: Holder, e: Entry): boolean {
    if (h.closed) return false;
    if (h.maxMessages > 0 && h.outstanding >= h.maxMessages) return false;
    // Bytes: at least one message always goes out, as on the service.
    return h.maxBytes <= 0 || h.outstanding === 0 || h.bytes + e.size <= h.maxBytes;
  }

  private hasRoom(): boolean {
    return this.holders.some((h) => !h.closed && (h.maxMessages <= 0 || h.outstanding < h.maxMessages));
  }

  /** The next stream (round robin) with room for this message. */
  private pickHolder(e: Entry): Holder | undefined {
    for (let n = 0; n < this.holders.length; n++) {
      const h = this.holders[(this.rr + n) % this.holders.length]!;
      if (this.fits(h, e)) {
        this.rr = (this.rr + n + 1) % this.holders.length;
        return h;
      }
    }
    return undefined;
  }

  /** Hands ready messages to streams with room, lanes oldest first, each lane's in order. */
  dispatch(): void {
    if (this.pending.size === 0 || !this.hasRoom()) return;
    const now = this.now();
    const batches = new Map<Holder, ReceivedMessage[]>();
    const perKey = this.policy.ordering && this.policy.outstandingPerKey > 0 ? this.policy.outstandingPerKey : Infinity;
    for (const lane of this.pending) {
      const l = this.lanes.get(lane);
      if (!l || l.next >= l.entries.length) {
        this.pending.delete(lane);
        continue;
      }
      const first = l.entries[l.next]!;
      if (first.availableAt > now) continue;
      const holder = l.outstanding > 0 ? l.holder! : l.last && this.fits(l.last, first) ? l.last : this.pickHolder(first);
      if (!holder) continue;
      while (l.next < l.entries.length && l.outstanding < perKey) {
        const e = l.entries[l.next]!;
        if (e.state !== 'ready' || e.availableAt > now || !this.fits(holder, e)) break;
        this.lease(e, l, holder, now, batches);
        l.next++;
      }
      if (l.next >= l.entries.length) this.pending.delete(lane);
      if (!this.hasRoom()) break;
    }
    for (const [h, messages] of batches) h.send(messages);
  }

  private lease(e: Entry, l: Lane, holder: Holder, now: number, batches: Map<Holder, ReceivedMessage[]>): void {
    e.attempts++;
    e.state = 'outstanding';
    const lease: Lease = { ackId: `${++this.ackSeq}-${e.message.messageId}`, entry: e, holder, deadline: now + holder.deadlineSeconds * 1000 };
    e.lease = lease;
    this.leases.set(lease.ackId, lease);
    holder.outstanding++;
    holder.bytes += e.size;
    l.outstanding++;
    l.holder = holder;
    l.last = holder;
    this.stats.delivered++;
    let batch = batches.get(holder);
    if (!batch) batches.set(holder, (batch = []));
    batch.push({ ackId: lease.ackId, message: e.message, deliveryAttempt: this.policy.deadLetter ? e.attempts : 0 });
  }
}
