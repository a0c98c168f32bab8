/**
 * The delivery gate: the delivery rules of the broker contract (harness/broker/contract.ts
 * ConsumerClient.start), kept once for every broker. An adapter turns what its client hands
 * it into an `Incoming` ({lane, payload, offset, deliveryCount, settle}) and gives it to
 * `accept`; the gate decides when the harness's `onDelivery` sees it:
 *   - per lane, in the order accepted: a lane's next delivery is handed out only after
 *     `onDelivery` of its previous one resolved (the harness resolves it at once when its
 *     concurrency mode allows parallel work, and only after the handling in partition mode),
 *     or returned without a promise (the harness handled it before returning);
 *   - at most `maxInFlight` handed-out deliveries unsettled at once, and never fewer than the
 *     lanes the client works on side by side (`lanesAtOnce`): each of those may have its one
 *     delivery out, so partition mode's one in flight becomes one per such lane;
 *   - a handler that throws without settling: logged, and the delivery settled as the adapter
 *     says (`onHandlerError`);
 *   - keep-alive: while deliveries wait for their turn, the client's own keep-alive runs (a
 *     kafkajs heartbeat, so a member waiting on a full pipeline is not evicted); a delivery
 *     may also renew its lock or lease until it is settled: while its handler runs, and after,
 *     while the harness holds it unsettled (a resequencer's held message).
 * `accept` resolves when the delivery was handed out and `onDelivery` resolved (true), or when
 * it was dropped unhandled (false): a client that waits for it (Kafka's fetch loop) really stops
 * while a handler blocks its lane; a client that pushes (AMQP, a batch of receives) does not wait.
 * `offer` is `accept` answering at once, without a promise, when the delivery was handled or
 * dropped before it returned (a fetch loop that hands out tens of thousands a second).
 *
 * The gate adds no rule of its own beyond these: deliveries of one lane that the broker hands one
 * process at once (a prefetch, a batch) run side by side as soon as `onDelivery` lets them, so
 * an overlap the broker causes stays in the history (test/delivery/gate.test.ts).
 */
import type { Delivery, OnDelivery, Settlement } from '../broker/contract.ts';

/** A delivery as an adapter gives it to the gate. */
export interface Incoming extends Delivery {
  /**
   * Asked when its turn comes, before it is handed out: false when the client has taken it back
   * meanwhile (a rebalance, a seek, a lost connection); the gate then drops it. May fill in
   * `offset` or `deliveryCount`.
   */
  claim?(): boolean;
  /** Keeps the client's session alive while this delivery waits for its turn. */
  keepAlive?(): Promise<void>;
  /**
   * Renews the delivery's lock or lease while its handler runs and while it is held unsettled;
   * asked every `keepAliveMs`. Resolves false when no renewal was due (not counted).
   */
  renew?(): Promise<boolean | void>;
}

export interface GateOptions {
  /** The consumer's name, for log lines. */
  id: string;
  maxInFlight: number;
  /**
   * Lanes the client works on side by side, one delivery out each (Kafka's
   * partitionsConsumedConcurrently, Service Bus's concurrent sessions): the cap is at least this.
   */
  lanesAtOnce?: number;
  log(line: string): void;
  /** How a delivery is settled when its handler threw without settling it. */
  onHandlerError: Settlement;
  /** How often keep-alive and renewals run (default 1 s). */
  keepAliveMs?: number;
  /** Called whenever a delivery stops counting (settled, taken back, dropped): a receive loop may fetch more. */
  onFree?(): void;
  /** Called after each renewal of a delivery's lock or lease: whether it succeeded (a strategy's costs count them). */
  onRenewal?(ok: boolean): void;
}

interface Waiting {
  d: Incoming;
  lane: string;
  /** Resolves the promise `offer` answered with; unset while `offer` has not returned. */
  done: ((handed: boolean) => void) | undefined;
  /** Whether it was handed out, once decided before `offer` returned. */
  result: boolean | undefined;
}

export class DeliveryGate {
  private readonly waiting: Waiting[] = [];
  /** Lanes whose latest handed-out delivery's onDelivery has not resolved. */
  private readonly busyLanes = new Set<string>();
  private handed = 0;
  /** Bumped by revokeAll: deliveries handed out before it no longer count. */
  private epoch = 0;
  private closed = false;
  private timer?: NodeJS.Timeout;
  private readonly renewing = new Set<Incoming>();
  private readonly max: number;

  constructor(
    private readonly onDelivery: OnDelivery,
    private readonly options: GateOptions,
  ) {
    this.max = Math.max(1, options.maxInFlight, options.lanesAtOnce ?? 0);
  }

  /** Handed out and not settled. */
  get inFlight(): number {
    return this.handed;
  }

  /** Accepted and not settled: waiting for their turn, or handed out. */
  get unsettled(): number {
    return this.handed + this.waiting.length;
  }

  accept(d: Incoming): Promise<boolean> {
    const answer = this.offer(d);
    return typeof answer === 'boolean' ? Promise.resolve(answer) : answer;
  }

  /** As `accept`, but the answer itself when it was decided before returning (no promise made). */
  offer(d: Incoming): boolean | Promise<boolean> {
    if (this.closed) return false;
    const w: Waiting = { d, lane: d.lane ?? '', done: undefined, result: undefined };
    this.waiting.push(w);
    this.pump();
    if (w.result !== undefined) return w.result;
    return new Promise<boolean>((done) => (w.done = done));
  }

  /** Takes back the lane's deliveries not handed out yet (they no longer count); in order. */
  takeWaiting(lane: string): Incoming[] {
    return this.remove((w) => w.lane === lane);
  }

  /**
   * The client lost every delivery it had (a dropped connection): those waiting are dropped,
   * those handed out stop counting (their settlement changes nothing the gate counts).
   */
  revokeAll(): void {
    this.remove(() => true);
    this.renewing.clear();
    this.epoch++;
    this.handed = 0;
    this.pump();
  }

  /** Hands out nothing more; returns the deliveries that were still waiting, in order. */
  close(): Incoming[] {
    this.closed = true;
    this.stopTimer();
    return this.remove(() => true);
  }

  private remove(which: (w: Waiting) => boolean): Incoming[] {
    const out: Waiting[] = [];
    for (let i = 0; i < this.waiting.length; ) {
      if (which(this.waiting[i]!)) out.push(...this.waiting.splice(i, 1));
      else i++;
    }
    for (const w of out) finish(w, false);
    if (out.length) this.options.onFree?.();
    return out.map((w) => w.d);
  }

  private pumping = false;
  private pumpAgain = false;

  /** Hands out what may go now; a settlement during a handover asks for another pass. */
  private pump(): void {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        this.pass();
      } while (this.pumpAgain);
    } finally {
      this.pumping = false;
    }
    this.tickWhileNeeded();
  }

  private pass(): void {
    // A lane's later deliveries wait behind its earlier ones: a lane with a delivery skipped in
    // this pass is busy (handed out here or before), and busyLanes only shrinks in a later turn
    // (or, for a delivery handled before onDelivery returned, at once: a lane not busy then, so
    // none of its deliveries was skipped in this pass).
    for (let i = 0; i < this.waiting.length && this.handed < this.max && !this.closed; ) {
      const w = this.waiting[i]!;
      if (this.busyLanes.has(w.lane)) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      if (w.d.claim && !w.d.claim()) {
        finish(w, false);
        this.options.onFree?.();
        continue;
      }
      this.handOut(w);
    }
  }

  private handOut(w: Waiting): void {
    const { d, lane } = w;
    this.handed++;
    this.busyLanes.add(lane);
    const delivery = new HandedOut(this, d, this.epoch);
    if (d.renew) this.renewing.add(d);
    let handled: Promise<void> | void;
    try {
      handled = this.onDelivery(delivery);
    } catch (err) {
      handled = Promise.reject(err);
    }
    // Handled before onDelivery returned: the lane is free now (the pump running this
    // handover makes another pass; busyLanes shrinks only for a lane handed out in this pass).
    if (handled === undefined) return this.handled(w, delivery);
    handled.then(
      () => this.handled(w, delivery),
      (err) => {
        this.options.log(`consumer ${this.options.id}: handler failed on ${lane} (${(err as Error)?.message ?? String(err)})`);
        if (delivery.settled) return this.handled(w, delivery);
        return delivery.settle(this.options.onHandlerError).then(
          () => this.handled(w, delivery),
          () => this.handled(w, delivery),
        );
      },
    );
  }

  /** onDelivery of a handed-out delivery resolved: its lane may hand out its next one. */
  private handled(w: Waiting, delivery: HandedOut): void {
    // A delivery still unsettled after its handler returned (a strategy holds it back) keeps
    // its lock or lease renewed until it is settled.
    if (delivery.settled || delivery.epoch !== this.epoch) this.renewing.delete(w.d);
    this.busyLanes.delete(w.lane);
    finish(w, true);
    this.pump();
  }

  /** A handed-out delivery's first settlement: it stops counting. */
  settled(d: Incoming, epoch: number): void {
    this.renewing.delete(d);
    if (epoch === this.epoch) this.handed--;
    this.options.onFree?.();
    this.pump();
  }

  /** Keep-alive and renewals run on one timer, only while something needs them. */
  private tickWhileNeeded(): void {
    const needed = !this.closed && (this.renewing.size > 0 || this.waiting.some(hasKeepAlive));
    if (needed && !this.timer) {
      this.timer = setInterval(() => this.tick(), this.options.keepAliveMs ?? 1_000);
      this.timer.unref();
    } else if (!needed) {
      this.stopTimer();
    }
  }

  private tick(): void {
    const waiter = this.waiting.find((w) => w.d.keepAlive);
    if (waiter) void waiter.d.keepAlive!().catch(() => {});
    for (const d of this.renewing) {
      void d.renew!().then(
        (renewed) => {
          if (renewed !== false) this.options.onRenewal?.(true);
        },
        (e: Error) => {
          this.options.onRenewal?.(false);
          this.options.log(`consumer ${this.options.id}: renewing a delivery on ${d.lane ?? ''} failed (${e.message})`);
        },
      );
    }
    this.tickWhileNeeded();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

const hasKeepAlive = (w: Waiting): boolean => w.d.keepAlive !== undefined;

/** Answers `offer`: through its promise, or as its return value when it has not returned yet. */
function finish(w: Waiting, handed: boolean): void {
  if (w.done) w.done(handed);
  else w.result = handed;
}

/**
 * A delivery as the harness sees it once handed out: the adapter's fields, and a settle that
 * tells the gate the first time. A class, not a literal with a closure: one is made per message.
 */
class HandedOut implements Delivery {
  readonly payload: Buffer;
  readonly lane?: string;
  // Own properties only when the adapter gave them (as a literal would have them).
  declare readonly offset?: number;
  declare readonly deliveryCount?: number;
  settled = false;

  constructor(
    private readonly gate: DeliveryGate,
    private readonly d: Incoming,
    readonly epoch: number,
  ) {
    this.payload = d.payload;
    this.lane = d.lane;
    if (d.offset !== undefined) (this as { offset?: number }).offset = d.offset;
    if (d.deliveryCount !== undefined) (this as { deliveryCount?: number }).deliveryCount = d.deliveryCount;
  }

  settle(how: Settlement): Promise<void> {
    // The adapter's settle first: what it takes back of the lane (takeWaiting) must not be
    // handed out by the pump this settlement starts.
    const done = this.d.settle(how);
    if (!this.settled) {
      this.settled = true;
      this.gate.settled(this.d, this.epoch);
    }
    return done;
  }
}
