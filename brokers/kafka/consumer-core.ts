/**
 * What both Kafka consumer adapters share: per-partition settlement ledgers, offset commits
 * of the settled prefix, group events and readiness. The adapters (client-kafkajs.ts,
 * client-confluent.ts) only feed it messages and carry out seeks/commits; the harness's
 * delivery gate (harness/delivery/gate.ts) keeps the delivery rules.
 *
 * Semantics (the same for both clients):
 *   - Deliveries of one partition are handed out in offset order; the next one is handed out
 *     only after `onDelivery` of the previous one resolved (the gate's rule; the client's fetch
 *     loop awaits handOut, so a handler that blocks its partition stops the loop).
 *   - At most `maxInFlight` deliveries are unsettled at once (across partitions; the gate), or
 *     partitionsConsumedConcurrently when that is more: with one delivery in flight (partition
 *     mode), each of the partitions fetched side by side has one out.
 *   - ack / dead-letter: the offset is done. Kafka keeps one committed offset per partition,
 *     so the consumer commits only the contiguous settled prefix (like Confluent's Parallel
 *     Consumer): an offset is committed once it and every earlier delivered offset are settled.
 *     Kafka has no dead-letter queue: dead-letter commits past the message (the harness
 *     records it).
 *   - requeue and release both seek the partition back to that offset: the message and every
 *     later one of that partition are delivered again (deliveryCount counts these redeliveries
 *     within this consumer; Kafka keeps no count). Kafka has no lock that could expire, so
 *     "release" cannot mean "later"; it redelivers at once too.
 *   - Before every commit, `options.beforeCommit` makes what the harness handled durable, so a
 *     settlement may come before its effects are written (the client's `commitsLater`).
 *   - autoCommit true: the settled prefix is committed every autoCommitIntervalMs (and on
 *     revocation and close); autoCommit false: right after each settlement that moves it
 *     (coalesced: one commit request in flight). Both clients' own auto-commit would commit
 *     the fetch position instead (messages handed out, not settled), so it is switched off.
 *   - A rebalance revokes every partition (both clients use eager assignors): deliveries
 *     from before it are stale, their settlement changes nothing, and the new owner starts
 *     from the committed offset.
 */
import { SETTLED_AT_ONCE, type ConsumerClient, type ConsumerGroupEvent, type ConsumerOptions, type Settlement, type OnDelivery } from '../../harness/broker/contract.ts';
import { InfraError } from '../../harness/errors.ts';
import { DeliveryGate, type Incoming } from '../../harness/delivery/gate.ts';
import type { ConsumerSettings } from './settings.ts';

export function laneOf(partition: number): string {
  return `p${partition}`;
}
export function partitionOfLane(lane: string): number {
  return Number(lane.replace(/^p/, ''));
}

/** Offsets per partition whose delivery counts are remembered. */
const COUNT_MEMORY = 20_000;

/**
 * Deliveries per offset by this consumer, for the `limit` offsets first delivered most
 * recently (a commit that "succeeds" after the member was evicted may not stick, so commits
 * cannot tell which offsets will come again).
 *
 * While each first delivery comes after the one before (a partition read in order, its seeks
 * going back no further than what is remembered), the offsets sit in a ring in first-delivery
 * order, which is then also offset order, and are found by bisection: no hash table to keep up
 * at every message (a Map's inserts and deletes were about 130 ns a message, and its rehashes
 * garbage for the old generation). The first new offset below the newest turns the counts into
 * a Map beside a queue of first deliveries for good. The oldest is found in that queue:
 * forgetting it through a Map's first key would cost a scan over the map's deleted entries on
 * every delivery (V8 keeps them until it rehashes), which was most of a consumer's CPU once a
 * partition had passed `limit` messages.
 */
export class DeliveryCounts {
  // In order: a ring (grown up to `limit` slots as needed), the oldest at `first`.
  private ringOffsets = new Float64Array(64);
  private ringCounts = new Uint32Array(64);
  private first = 0;
  private held = 0;
  // Out of order: the counts by offset, and the first deliveries in order from `head`.
  private counts?: Map<number, number>;
  private order: number[] = [];
  private head = 0;

  constructor(private readonly limit = COUNT_MEMORY) {}

  /** Counts one more delivery of `offset`; returns its deliveries so far, this one included. */
  bump(offset: number): number {
    if (this.counts) return this.bumpInMap(this.counts, offset);
    const n = this.held;
    const L = this.ringOffsets.length;
    if (n > 0 && offset <= this.ringOffsets[(this.first + n - 1) % L]!) {
      // Delivered before, or a new offset below the newest: bisect the ring.
      let lo = 0;
      let hi = n - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const at = (this.first + mid) % L;
        const o = this.ringOffsets[at]!;
        if (o === offset) return ++this.ringCounts[at]!;
        if (o < offset) lo = mid + 1;
        else hi = mid - 1;
      }
      return this.bumpInMap(this.toMap(), offset);
    }
    if (n === this.limit) {
      this.first = (this.first + 1) % L; // forget the oldest
      this.held--;
    } else if (n === L) this.grow();
    const at = (this.first + this.held) % this.ringOffsets.length;
    this.ringOffsets[at] = offset;
    this.ringCounts[at] = 1;
    this.held++;
    return 1;
  }

  /** A full ring below `limit` slots: twice the slots (at most `limit`), the oldest at 0. */
  private grow(): void {
    const L = this.ringOffsets.length;
    const offsets = new Float64Array(Math.min(this.limit, 2 * L));
    const counts = new Uint32Array(offsets.length);
    for (let i = 0; i < this.held; i++) {
      offsets[i] = this.ringOffsets[(this.first + i) % L]!;
      counts[i] = this.ringCounts[(this.first + i) % L]!;
    }
    this.ringOffsets = offsets;
    this.ringCounts = counts;
    this.first = 0;
  }

  get size(): number {
    return this.counts ? this.counts.size : this.held;
  }

  /** The ring's offsets and counts, oldest first, as the Map and queue from here on. */
  private toMap(): Map<number, number> {
    const counts = new Map<number, number>();
    for (let i = 0; i < this.held; i++) {
      const at = (this.first + i) % this.ringOffsets.length;
      counts.set(this.ringOffsets[at]!, this.ringCounts[at]!);
      this.order.push(this.ringOffsets[at]!);
    }
    this.counts = counts;
    return counts;
  }

  private bumpInMap(counts: Map<number, number>, offset: number): number {
    const count = (counts.get(offset) ?? 0) + 1;
    if (count === 1) this.order.push(offset);
    counts.set(offset, count);
    if (counts.size > this.limit) {
      counts.delete(this.order[this.head++]!);
      if (this.head > this.limit) {
        this.order = this.order.slice(this.head);
        this.head = 0;
      }
    }
    return count;
  }
}

interface Entry {
  offset: number;
  settled: boolean;
  /** Dropped by a seek back or a revocation: its settlement changes nothing. */
  dropped: boolean;
}

/**
 * Handed-out offsets of one partition, in delivery order. `counts` (deliveries per offset by
 * this consumer) may be shared by successive ledgers of the same partition, so a message
 * delivered again after a rebalance to the same consumer counts 2.
 */
export class PartitionLedger {
  private entries: Entry[] = [];
  /** Next offset to commit (the settled prefix's end), once something was settled. */
  committable?: number;
  committed?: number;

  constructor(private readonly counts = new DeliveryCounts()) {}

  /** Deliveries of the offset delivered last, that one included. */
  lastCount = 0;

  deliver(offset: number): Entry {
    const entry: Entry = { offset, settled: false, dropped: false };
    this.entries.push(entry);
    this.lastCount = this.counts.bump(offset);
    return entry;
  }

  /** Marks an entry done; true when the settled prefix moved. */
  settle(entry: Entry): boolean {
    entry.settled = true;
    let moved = false;
    while (this.entries.length && this.entries[0]!.settled) {
      const e = this.entries.shift()!;
      this.committable = e.offset + 1;
      moved = true;
    }
    return moved;
  }

  /** Forgets every entry at or after `offset` (they will be delivered again). */
  rewind(offset: number): void {
    const keep: Entry[] = [];
    for (const e of this.entries) {
      if (e.offset >= offset) e.dropped = true;
      else keep.push(e);
    }
    this.entries = keep;
  }

  /** Revocation: every outstanding delivery is stale. */
  drop(): void {
    for (const e of this.entries) e.dropped = true;
    this.entries = [];
  }

  get outstanding(): number {
    return this.entries.length;
  }
}

export interface ConsumerDriver {
  seek(partition: number, offset: number): void;
  commit(offsets: { partition: number; offset: number }[]): Promise<void>;
}

/** The part of a KafkaJS `eachBatch` payload handOutBatch reads. */
export interface KafkaJsBatchPayload {
  batch: { partition: number; messages: { offset: string; value: Buffer | null }[] };
  resolveOffset(offset: string): void;
  heartbeat?: () => Promise<void>;
  isRunning(): boolean;
  isStale(): boolean;
}

export class ConsumerCore {
  private ledgers = new Map<number, PartitionLedger>();
  /** Deliveries per offset by this consumer, per partition, kept across rebalances. */
  private counts = new Map<number, DeliveryCounts>();
  private assigned: number[] = [];
  private gate?: DeliveryGate;
  private driver?: ConsumerDriver;
  private commitTimer?: NodeJS.Timeout;
  private commitRunning?: Promise<void>;
  private commitAgain = false;
  private readyWaiters: { resolve: () => void }[] = [];
  private isReady = false;
  private closed = false;
  /** Generation of the current assignment, when the client can tell. */
  generation?: number;

  constructor(
    readonly topic: string,
    private readonly settings: ConsumerSettings,
    private readonly options: ConsumerOptions,
  ) {}

  attach(driver: ConsumerDriver): void {
    this.driver = driver;
    if (this.settings.autoCommit) {
      this.commitTimer = setInterval(() => void this.commitNow(), this.settings.autoCommitIntervalMs);
      this.commitTimer.unref();
    }
  }

  get lanes(): string[] {
    return this.assigned.map(laneOf);
  }

  get inFlight(): number {
    return this.gate?.inFlight ?? 0;
  }

  /** The harness's delivery gate takes every message from here on (ConsumerClient.start). */
  start(onDelivery: OnDelivery): void {
    // partitionsConsumedConcurrently partitions are fetched side by side, one delivery out each.
    this.gate = new DeliveryGate(onDelivery, { id: this.options.id, maxInFlight: this.options.maxInFlight, lanesAtOnce: this.settings.partitionsConsumedConcurrently, log: this.options.log, onHandlerError: 'requeue', onRenewal: this.options.onRenewal });
  }

  /** The group gave this member `partitions` (possibly none): it is ready. */
  assign(partitions: number[], generation?: number): void {
    if (generation !== undefined) this.generation = generation;
    this.assigned = [...partitions].sort((a, b) => a - b);
    for (const p of this.assigned) {
      this.ledgers.get(p)?.drop();
      if (!this.counts.has(p)) this.counts.set(p, new DeliveryCounts());
      this.ledgers.set(p, new PartitionLedger(this.counts.get(p)!));
    }
    this.options.onGroupEvent?.({ phase: 'assigned', lanes: this.lanes, generation: this.generation });
    this.isReady = true;
    this.readyWaiters.splice(0).forEach((w) => w.resolve());
  }

  /** The member lost `partitions`: outstanding deliveries become stale. */
  revoke(partitions: number[], generation?: number): void {
    if (partitions.length === 0) return;
    for (const p of partitions) {
      this.ledgers.get(p)?.drop();
      this.ledgers.delete(p);
    }
    this.assigned = this.assigned.filter((p) => !partitions.includes(p));
    const event: ConsumerGroupEvent = { phase: 'revoked', lanes: partitions.map(laneOf), generation: generation ?? this.generation };
    this.options.onGroupEvent?.(event);
  }

  ready(timeoutMs: number): Promise<void> {
    if (this.isReady) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        reject(new InfraError(`Kafka consumer ${this.options.id} got no partition assignment from the group within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      this.readyWaiters.push({
        resolve: () => {
          clearTimeout(t);
          resolve();
        },
      });
    });
  }

  owns(partition: number): boolean {
    return this.ledgers.has(partition);
  }

  /**
   * The client members the KafkaJS-API adapters share: ready once assigned, commits after the
   * harness's writes, and on close the settled prefix committed before the client disconnects.
   */
  lifecycle(disconnect: () => Promise<void>): Pick<ConsumerClient, 'ready' | 'commitsLater' | 'close'> {
    return {
      ready: (timeoutMs) => this.ready(timeoutMs),
      commitsLater: true,
      close: async () => {
        await this.flush();
        this.close();
        await disconnect();
      },
    };
  }

  /**
   * An `eachBatch` of the KafkaJS consumer API (kafkajs, and the librdkafka client's KafkaJS
   * layer): hands the batch's messages out in offset order until the batch goes stale. The fetch
   * position moves on with each one handed out; what gets committed is decided by settlement.
   */
  async handOutBatch(b: KafkaJsBatchPayload): Promise<void> {
    const stale = () => !b.isRunning() || b.isStale();
    for (const message of b.batch.messages) {
      if (stale()) break;
      const handed = await this.handOut(b.batch.partition, Number(message.offset), message.value ?? Buffer.alloc(0), { stale, heartbeat: b.heartbeat });
      if (!handed) break;
      b.resolveOffset(message.offset);
    }
  }

  /**
   * Hands one message to the harness through the gate (which runs `heartbeat` while it waits
   * for an in-flight slot) and resolves when onDelivery did; answers at once, without a promise,
   * when the harness handled it before returning (the gate's offer). False when the message was
   * not handed out (partition no longer owned, or `stale()` says a seek superseded it).
   */
  handOut(partition: number, offset: number, payload: Buffer, hooks: { stale?: () => boolean; heartbeat?: () => Promise<void> } = {}): boolean | Promise<boolean> {
    if (this.closed || !this.gate) return false;
    return this.gate.offer(new PartitionDelivery(this, partition, offset, payload, hooks.stale, hooks.heartbeat));
  }

  /** A delivery's turn came (PartitionDelivery.claim): its partition's ledger, unless stale. */
  ledgerToClaim(partition: number, stale: (() => boolean) | undefined): PartitionLedger | undefined {
    const ledger = this.ledgers.get(partition);
    if (!ledger || stale?.() || this.closed) return undefined;
    return ledger;
  }

  /** A claimed delivery's first settlement (PartitionDelivery.settle). */
  settled(partition: number, offset: number, ledger: PartitionLedger, entry: Entry, how: Settlement): void {
    if (entry.dropped || this.ledgers.get(partition) !== ledger) return; // stale: a seek or rebalance superseded it
    if (how === 'ack' || how === 'dead-letter') {
      if (ledger.settle(entry) && !this.settings.autoCommit) void this.commitNow();
      return;
    }
    // requeue / release: deliver it (and everything after it in this partition) again.
    ledger.rewind(offset);
    this.driver?.seek(partition, offset);
  }

  private targets(): { partition: number; offset: number }[] {
    const out: { partition: number; offset: number }[] = [];
    for (const [partition, l] of this.ledgers) {
      if (l.committable !== undefined && l.committable !== l.committed) out.push({ partition, offset: l.committable });
    }
    return out;
  }

  /** Commits every partition's settled prefix that moved; one commit request at a time. */
  commitNow(): Promise<void> {
    if (this.commitRunning) {
      this.commitAgain = true;
      return this.commitRunning;
    }
    const run = async (): Promise<void> => {
      do {
        this.commitAgain = false;
        const targets = this.targets();
        if (!targets.length || !this.driver) return;
        try {
          // What the settled offsets cover is written before the broker hears of them.
          this.options.beforeCommit?.();
          await this.driver.commit(targets);
          for (const t of targets) {
            const l = this.ledgers.get(t.partition);
            if (l) l.committed = Math.max(l.committed ?? 0, t.offset);
          }
        } catch (err) {
          this.options.log(`commit of ${targets.map((t) => `${laneOf(t.partition)}@${t.offset}`).join(' ')} failed: ${(err as Error).message}`);
          return;
        }
      } while (this.commitAgain);
    };
    this.commitRunning = run().finally(() => (this.commitRunning = undefined));
    return this.commitRunning;
  }

  /** Before a revocation or close: commit what is settled (best effort). */
  async flush(): Promise<void> {
    await this.commitNow().catch(() => {});
    if (this.commitRunning) await this.commitRunning.catch(() => {});
  }

  close(): void {
    this.closed = true;
    this.gate?.close();
    if (this.commitTimer) clearInterval(this.commitTimer);
    for (const l of this.ledgers.values()) l.drop();
    this.ledgers.clear();
  }
}

/** A fetched message as the batch-reading adapters give it (librdkafka's own message object, as it comes). */
export interface BatchMessage {
  offset: number;
  value: Buffer | null;
}
const EMPTY = Buffer.alloc(0);

/**
 * Hands a fetched batch out partition by partition (the batch-reading adapters: librdkafka's
 * consume loop, @platformatic/kafka's stream): each partition's messages in offset order, one
 * handOut after the other, the partitions side by side, the gate deciding how many are out at
 * once. A partition stops at a message not handed out, or once its epoch moved (a seek or a
 * (re)assignment superseded the batch) or `closing()` says so.
 */
export async function handOutPartitions(
  core: ConsumerCore,
  byPartition: Map<number, BatchMessage[]>,
  epochs: Map<number, number>,
  closing: () => boolean,
): Promise<void> {
  const drain = async (partition: number, messages: BatchMessage[]): Promise<void> => {
    const epoch = epochs.get(partition);
    const stale = () => closing() || epochs.get(partition) !== epoch;
    const hooks = { stale };
    for (const m of messages) {
      if (stale()) return;
      const handed = core.handOut(partition, m.offset, m.value ?? EMPTY, hooks);
      // Awaited only when it is a promise: a message handled at once costs no turn.
      if (handed === false || (handed !== true && !(await handed))) return;
    }
  };
  if (byPartition.size === 1) for (const [p, ms] of byPartition) await drain(p, ms);
  else if (byPartition.size > 1) await Promise.all([...byPartition].map(([p, ms]) => drain(p, ms)));
}

/** Lane names by partition, made once. */
const LANES: string[] = [];
const laneNamed = (partition: number): string => (LANES[partition] ??= laneOf(partition));

/**
 * One message on its way through the gate: claimed in the partition's ledger when its turn
 * comes, settled into it once. A class, not a literal with closures: one is made per message.
 */
class PartitionDelivery implements Incoming {
  readonly lane: string;
  deliveryCount?: number;
  private ledger?: PartitionLedger;
  private entry?: Entry;
  private done = false;

  constructor(
    private readonly core: ConsumerCore,
    private readonly partition: number,
    readonly offset: number,
    readonly payload: Buffer,
    private readonly stale: (() => boolean) | undefined,
    readonly keepAlive: (() => Promise<void>) | undefined,
  ) {
    this.lane = laneNamed(partition);
  }

  claim(): boolean {
    this.ledger = this.core.ledgerToClaim(this.partition, this.stale);
    if (!this.ledger) return false;
    this.entry = this.ledger.deliver(this.offset);
    this.deliveryCount = this.ledger.lastCount;
    return true;
  }

  settle(how: Settlement): Promise<void> {
    if (this.done || !this.entry || !this.ledger) return SETTLED_AT_ONCE;
    this.done = true;
    this.core.settled(this.partition, this.offset, this.ledger, this.entry, how);
    return SETTLED_AT_ONCE;
  }
}

export { throttledLog } from '../../harness/broker/throttled-log.ts';
