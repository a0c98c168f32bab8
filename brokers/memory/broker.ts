/**
 * The memory broker's state: destinations (one per run prefix) and their consumers. It lives in
 * the runner process and speaks to clients only through BrokerHost sessions, so a client in a
 * worker process and one in the runner are served alike. Every rule here is the contract's
 * (harness/broker/contract.ts), kept deliberately plain:
 *  - a consumer gets the next delivery of a lane only after its previous one was handed over
 *    (onDelivery resolved), and holds at most maxInFlight unsettled deliveries;
 *  - settlement: ack and dead-letter are done; requeue gives the message back at once; release
 *    lets it come back later (queue: after the visibility timeout; partitioned: from the
 *    committed offset, like a Kafka seek);
 *  - a consumer that goes away gives its unsettled deliveries back (queue: to the head, in
 *    order; partitioned: the next owner of the lane reads from the committed offset).
 */
import type { BrokerHost, PeerSession } from '../../harness/broker/in-process.ts';
import type { MemorySettings } from './settings.ts';

export interface Stored {
  /** Arrival number in its destination: the offset of a queue message. */
  seq: number;
  key: string;
  /** The message's bytes, base64: as the client sent them and as it gets them (its calls and pushes are JSON). */
  payload: string;
  deliveries: number;
}

/** What the broker pushes to a consumer. */
export type Push =
  | { type: 'delivery'; id: number; lane: string; offset: number; payload: string; deliveryCount: number }
  | { type: 'group'; phase: 'assigned' | 'revoked'; lanes: string[]; generation: number };

interface Member {
  peer: string;
  push(p: Push): void;
  maxInFlight: number;
  /** Delivery id -> what it is. */
  unsettled: Map<number, { lane: number; offset: number; stored: Stored; generation: number }>;
  /** Deliveries not yet handed over (onDelivery still running), and their lanes: a lane waits for them. */
  handing: Map<number, number>;
  busyLanes: Set<number>;
  lanes: number[];
}

/** FNV-1a: the lane of a key, stable across processes. */
export function laneOfKey(key: string, lanes: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % lanes;
}

export class Destination {
  /** partitioned: one log per lane; queue: lane 0 is the queue's arrival log. */
  readonly logs: Stored[][] = [];
  /** partitioned: the group's committed offset per lane, and settled offsets beyond it. */
  readonly committed: number[] = [];
  private readonly settled: Set<number>[] = [];
  /** partitioned: next offset to deliver per lane (from its owner's point of view). */
  private readonly position: number[] = [];
  /** queue: messages ready to deliver, in order; and those out with a consumer. */
  private ready: Stored[] = [];
  private readonly out = new Map<number, { member: Member; stored: Stored; deadline: number }>();
  readonly deadLetters: Stored[] = [];
  private readonly members = new Map<string, Member>();
  private generation = 0;
  private rebalanceTimer?: NodeJS.Timeout;
  private nextDelivery = 0;
  private nextSeq = 0;
  private roundRobin = 0;
  private sweeper?: NodeJS.Timeout;

  constructor(readonly settings: MemorySettings) {
    const lanes = settings.mode === 'partitioned' ? settings.partitions : 1;
    for (let i = 0; i < lanes; i++) this.addLane();
    if (settings.mode === 'queue') {
      this.sweeper = setInterval(() => this.expire(), Math.max(5, Math.min(100, settings.visibilityMs / 4)));
      this.sweeper.unref();
    }
  }

  get laneCount(): number {
    return this.logs.length;
  }

  laneName(i: number): string {
    return this.settings.mode === 'partitioned' ? `p${i}` : 'queue';
  }

  private addLane(): void {
    this.logs.push([]);
    this.committed.push(0);
    this.settled.push(new Set());
    this.position.push(0);
  }

  send(key: string, payload: string): { lane: string; offset: number } {
    const stored: Stored = { seq: this.nextSeq++, key, payload, deliveries: 0 };
    const lane = this.settings.mode === 'partitioned' ? laneOfKey(key, this.laneCount) : 0;
    this.logs[lane]!.push(stored);
    if (this.settings.mode === 'queue') this.ready.push(stored);
    this.pumpAll();
    return { lane: this.laneName(lane), offset: this.settings.mode === 'partitioned' ? this.logs[lane]!.length - 1 : stored.seq };
  }

  /** Messages not yet settled for good, per lane (what a drain still waits for), and dead letters. */
  remaining(): { lanes: Record<string, number>; deadLetters: number } {
    const lanes: Record<string, number> = {};
    if (this.settings.mode === 'queue') lanes.queue = this.ready.length + this.out.size;
    else this.logs.forEach((log, i) => (lanes[this.laneName(i)] = log.length - this.committed[i]!));
    return { lanes, deadLetters: this.deadLetters.length };
  }

  join(peer: string, push: (p: Push) => void, maxInFlight: number): void {
    this.members.set(peer, { peer, push, maxInFlight: Math.max(1, maxInFlight), unsettled: new Map(), handing: new Map(), busyLanes: new Set(), lanes: [] });
    if (this.settings.mode === 'partitioned') this.scheduleRebalance();
    else {
      this.members.get(peer)!.lanes = [0];
      push({ type: 'group', phase: 'assigned', lanes: ['queue'], generation: 0 });
      this.pumpAll();
    }
  }

  leave(peer: string): void {
    const m = this.members.get(peer);
    if (!m) return;
    this.members.delete(peer);
    if (this.settings.mode === 'queue') {
      // Its unsettled messages go back to the head of the queue, in their order.
      const back = [...this.out.entries()].filter(([, o]) => o.member === m).sort((a, b) => a[1].stored.seq - b[1].stored.seq);
      for (const [id] of back) this.out.delete(id);
      this.ready = [...back.map(([, o]) => o.stored), ...this.ready];
      this.pumpAll();
    } else {
      this.scheduleRebalance();
    }
  }

  addLanes(total: number): void {
    while (this.laneCount < total) this.addLane();
    if (this.settings.mode === 'partitioned') this.scheduleRebalance();
  }

  redrive(): number {
    const n = this.deadLetters.length;
    for (const s of this.deadLetters.splice(0)) {
      s.deliveries = 0;
      if (this.settings.mode === 'queue') this.ready.push(s);
      else this.send(s.key, s.payload);
    }
    this.pumpAll();
    return n;
  }

  /** The consumer's onDelivery for this delivery resolved: it may have the lane's next one. */
  handed(peer: string, id: number): void {
    const m = this.members.get(peer);
    if (!m) return;
    const lane = m.handing.get(id);
    if (lane === undefined) return;
    m.handing.delete(id);
    m.busyLanes.delete(lane);
    this.pump(m);
  }

  settle(peer: string, id: number, how: 'ack' | 'requeue' | 'dead-letter' | 'release'): void {
    const m = this.members.get(peer);
    const d = m?.unsettled.get(id);
    // A settlement after the consumer lost the message (left, rebalanced, lock expired) is void.
    if (!m || !d || (this.settings.mode === 'partitioned' && d.generation !== this.generation)) return;
    m.unsettled.delete(id);
    if (this.settings.mode === 'queue') {
      if (!this.out.has(id)) return;
      this.out.delete(id);
      if (how === 'dead-letter') this.deadLetters.push(d.stored);
      else if (how === 'requeue') this.giveBack(d.stored);
      else if (how === 'release') this.out.set(id, { member: m, stored: d.stored, deadline: Date.now() + this.settings.visibilityMs });
    } else if (how === 'ack' || how === 'dead-letter') {
      if (how === 'dead-letter') this.deadLetters.push(d.stored);
      this.settled[d.lane]!.add(d.offset);
      while (this.settled[d.lane]!.delete(this.committed[d.lane]!)) this.committed[d.lane]!++;
    } else {
      // Like a Kafka seek: the lane is read again from this message on (later ones come twice).
      this.position[d.lane] = Math.min(this.position[d.lane]!, d.offset);
      for (const [other, o] of m.unsettled) if (o.lane === d.lane && o.offset > d.offset) m.unsettled.delete(other);
    }
    this.pumpAll();
  }

  private giveBack(stored: Stored): void {
    if (this.settings.maxDeliveries > 0 && stored.deliveries >= this.settings.maxDeliveries) this.deadLetters.push(stored);
    else this.ready.unshift(stored);
  }

  /** queue: deliveries whose visibility timeout passed come back. */
  private expire(): void {
    const now = Date.now();
    const due = [...this.out.entries()].filter(([, o]) => o.deadline <= now).sort((a, b) => b[1].stored.seq - a[1].stored.seq);
    for (const [id, o] of due) {
      this.out.delete(id);
      o.member.unsettled.delete(id);
      this.giveBack(o.stored);
    }
    if (due.length) this.pumpAll();
  }

  private scheduleRebalance(): void {
    // Every member stops at once; the lanes are handed out when the group has re-formed.
    this.generation++;
    for (const m of this.members.values()) {
      if (m.lanes.length) m.push({ type: 'group', phase: 'revoked', lanes: m.lanes.map((l) => this.laneName(l)), generation: this.generation });
      m.lanes = [];
      m.unsettled.clear();
      m.handing.clear();
      m.busyLanes.clear();
    }
    clearTimeout(this.rebalanceTimer);
    this.rebalanceTimer = setTimeout(() => this.rebalance(), this.settings.rebalanceDelayMs);
    this.rebalanceTimer.unref();
  }

  private rebalance(): void {
    const members = [...this.members.values()].sort((a, b) => a.peer.localeCompare(b.peer));
    for (let lane = 0; lane < this.laneCount; lane++) {
      this.position[lane] = this.committed[lane]!;
      if (members.length) members[lane % members.length]!.lanes.push(lane);
    }
    for (const m of members) m.push({ type: 'group', phase: 'assigned', lanes: m.lanes.map((l) => this.laneName(l)), generation: this.generation });
    this.pumpAll();
  }

  private pumpAll(): void {
    const members = [...this.members.values()];
    // Round robin over consumers, so competing consumers share a queue.
    for (let i = 0; i < members.length; i++) this.pump(members[(this.roundRobin + i) % members.length]!);
    this.roundRobin++;
  }

  private pump(m: Member): void {
    for (const lane of m.lanes) {
      while (!m.busyLanes.has(lane) && m.unsettled.size < m.maxInFlight) {
        const stored = this.next(lane);
        if (!stored) break;
        const id = ++this.nextDelivery;
        stored.deliveries++;
        const offset = this.settings.mode === 'partitioned' ? this.position[lane]! - 1 : stored.seq;
        m.unsettled.set(id, { lane, offset, stored, generation: this.generation });
        if (this.settings.mode === 'queue') this.out.set(id, { member: m, stored, deadline: Date.now() + this.settings.visibilityMs });
        m.busyLanes.add(lane);
        m.handing.set(id, lane);
        m.push({ type: 'delivery', id, lane: this.laneName(lane), offset, payload: stored.payload, deliveryCount: stored.deliveries });
      }
    }
  }

  private next(lane: number): Stored | undefined {
    if (this.settings.mode === 'queue') return this.ready.shift();
    const log = this.logs[lane]!;
    const pos = this.position[lane]!;
    if (pos >= log.length) return undefined;
    this.position[lane] = pos + 1;
    return log[pos];
  }

  close(): void {
    clearInterval(this.sweeper);
    clearTimeout(this.rebalanceTimer);
  }
}

/** One memory broker: its destinations by run prefix, served to clients as a BrokerHost. */
export class MemoryBroker implements BrokerHost {
  readonly destinations = new Map<string, Destination>();

  constructor(readonly settings: MemorySettings) {}

  destination(prefix: string): Destination {
    const d = this.destinations.get(prefix);
    if (!d) throw new Error(`memory broker: no destination ${prefix} (create it first)`);
    return d;
  }

  create(prefix: string): void {
    if (!this.destinations.has(prefix)) this.destinations.set(prefix, new Destination(this.settings));
  }

  delete(prefix: string): void {
    this.destinations.get(prefix)?.close();
    this.destinations.delete(prefix);
  }

  connect(peer: string, push: (msg: unknown) => void): PeerSession {
    const joined = new Set<string>();
    return {
      call: async (method, raw) => {
        const args = raw as { prefix: string; key?: string; payload?: string; id?: number; how?: 'ack'; maxInFlight?: number };
        const d = this.destination(args.prefix);
        switch (method) {
          case 'send':
            return d.send(args.key!, args.payload!);
          case 'subscribe':
            joined.add(args.prefix);
            d.join(peer, push, args.maxInFlight ?? 1);
            return null;
          case 'handed':
            d.handed(peer, args.id!);
            return null;
          case 'settle':
            d.settle(peer, args.id!, args.how!);
            return null;
          default:
            throw new Error(`memory broker: unknown call ${method}`);
        }
      },
      closed: () => {
        for (const prefix of joined) this.destinations.get(prefix)?.leave(peer);
        joined.clear();
      },
    };
  }

  close(): void {
    for (const d of this.destinations.values()) d.close();
    this.destinations.clear();
  }
}
