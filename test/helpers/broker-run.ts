/**
 * Shared pieces of the broker integration tests: a run's admin, producer and consumers on any
 * broker module, with every handling recorded, and the questions tests ask of them (reordered
 * keys, overlapping handlings).
 */
import type { BrokerAdmin, BrokerDefinition, BrokerSettings, ConsumerClient, Delivery, Endpoint, ProducerClient, RunNames, Settlement } from '../../harness/broker/contract.ts';
import { after, before } from 'node:test';
import { runCleanup } from '../../harness/runtime/cleanup.ts';
import { decodeMessage, encodeMessage } from '../../harness/workload/codec.ts';

export const quiet = (line: string) => {
  if (process.env.CONVOY_TEST_VERBOSE) process.stderr.write(`  ${line}\n`);
};

let runCounter = 0;
export function runNames(tag: string): RunNames {
  const runId = `${tag}-${process.pid}-${++runCounter}-${Date.now().toString(36)}`;
  return { runId, prefix: `convoy-${runId}` };
}

/** Real convoy payloads (binary header), so deduplication ids are producer.key.seq as in a run. */
export const payload = (key: string, seq: number, producer = 'p1') => encodeMessage({ producer, key, seq, intendedUs: null, poison: false }, 64);
export const parse = (d: Delivery) => {
  const m = decodeMessage(d.payload);
  if (!m) throw new Error('not a convoy payload');
  return m;
};
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

/** One handling of a delivery: who, what, and when it started and ended. */
export interface Handled {
  consumer: string;
  key: string;
  seq: number;
  lane?: string;
  deliveryCount?: number;
  start: number;
  end?: number;
  settled?: Settlement | 'none';
}

export type Handler = (h: Handled, d: Delivery) => Promise<Settlement | 'none'> | Settlement | 'none';

/** A run's admin, producer and consumers, with every handling recorded in start order. */
export class BrokerRun<S extends BrokerSettings, A extends BrokerAdmin> {
  readonly handled: Handled[] = [];
  /** What the clients logged (consumer id prefixed). */
  readonly logs: string[] = [];
  private readonly closers: (() => Promise<void>)[] = [];
  admin!: A;

  constructor(
    readonly broker: BrokerDefinition,
    readonly endpoint: Endpoint,
    readonly settings: S,
    readonly names: RunNames,
  ) {}

  static async open<S extends BrokerSettings, A extends BrokerAdmin>(broker: BrokerDefinition, endpoint: Endpoint, settings: S, tag: string): Promise<BrokerRun<S, A>> {
    const r = new BrokerRun<S, A>(broker, endpoint, settings, runNames(tag));
    r.admin = (await broker.admin(endpoint, settings, r.names)) as A;
    await r.admin.createDestinations();
    return r;
  }

  async producer(id = 'p1'): Promise<ProducerClient> {
    const p = await this.broker.producer(this.endpoint, this.settings, this.names, { id, log: quiet });
    this.closers.push(() => p.close());
    return p;
  }

  /** Sends perKey messages for each key from seq `from`, interleaved (k0#1, k1#1, ..., k0#2, ...), all at once. */
  async sendAll(p: ProducerClient, keys: string[], perKey: number, from = 1): Promise<void> {
    const sends: Promise<unknown>[] = [];
    for (let seq = from; seq < from + perKey; seq++) for (const key of keys) sends.push(p.send({ key, payload: payload(key, seq) }));
    await Promise.all(sends);
  }

  /**
   * handler decides the settlement and may take its time. With `early` the delivery is
   * released to the client at once (as the harness's unordered mode does), so the client's
   * one-at-a-time-per-lane rule does not serialize the handling.
   */
  async consumer(id: string, handler: Handler = () => 'ack', opts: { maxInFlight?: number; early?: boolean } = {}): Promise<ConsumerClient> {
    const log = (line: string) => {
      this.logs.push(line);
      quiet(line);
    };
    const c = await this.broker.consumer(this.endpoint, this.settings, this.names, { id, maxInFlight: opts.maxInFlight ?? 10, log });
    this.closers.push(() => c.close());
    await c.start(async (d) => {
      const m = parse(d);
      const rec: Handled = { consumer: id, key: m.key, seq: m.seq, lane: d.lane, deliveryCount: d.deliveryCount, start: Date.now() };
      this.handled.push(rec);
      const work = (async () => {
        const how = await handler(rec, d);
        rec.end = Date.now();
        rec.settled = how;
        if (how !== 'none') await d.settle(how);
      })();
      if (!opts.early) await work;
    });
    await c.ready(15_000);
    return c;
  }

  /** Handlings of one key, in start order. */
  of(key: string): Handled[] {
    return this.handled.filter((h) => h.key === key);
  }

  /** Distinct messages acknowledged. */
  acked(): number {
    return new Set(this.handled.filter((h) => h.settled === 'ack').map((h) => `${h.key}#${h.seq}`)).size;
  }

  /** Keys whose handlings did not start in send order (a later seq before an earlier one). */
  reorderedKeys(): string[] {
    const out = new Set<string>();
    const maxSeen = new Map<string, number>();
    for (const h of this.handled) {
      const m = maxSeen.get(h.key) ?? 0;
      if (h.seq < m) out.add(h.key);
      maxSeen.set(h.key, Math.max(m, h.seq));
    }
    return [...out];
  }

  /** Pairs of handlings of one key that overlapped in time (any consumers, or `across` only different ones). */
  overlaps(across = false): [Handled, Handled][] {
    const out: [Handled, Handled][] = [];
    for (let i = 0; i < this.handled.length; i++) {
      for (let j = i + 1; j < this.handled.length; j++) {
        const a = this.handled[i]!;
        const b = this.handled[j]!;
        if (a.key !== b.key || (across && a.consumer === b.consumer)) continue;
        if (a.start < (b.end ?? Infinity) && b.start < (a.end ?? Infinity)) out.push([a, b]);
      }
    }
    return out;
  }

  async close(): Promise<void> {
    for (const c of this.closers.reverse()) await c().catch(() => {});
    await this.admin.deleteDestinations().catch(() => {});
    await this.admin.close();
  }
}

/**
 * One broker for a test file, and the runs its tests make on it: registers hooks that start it
 * before the file's tests and, after them, close every run, stop it and clean up. `dep` is
 * the deployment once started.
 */
export function brokerPerFile<D extends { stop(): Promise<void> }, R extends { close(): Promise<void> }>(
  start: () => Promise<D>,
  create: (dep: D, over: Record<string, unknown>, tag: string) => Promise<R>,
): { readonly dep: D; run(over: Record<string, unknown>, tag: string): Promise<R> } {
  let dep: D | undefined;
  const runs: R[] = [];
  before(async () => {
    dep = await start();
  });
  after(async () => {
    await Promise.all(runs.map((r) => r.close().catch(() => {})));
    await dep?.stop();
    await runCleanup();
  });
  const fixture = {
    get dep(): D {
      if (!dep) throw new Error('the broker is not started yet (use it inside a test)');
      return dep;
    },
    run: async (over: Record<string, unknown>, tag: string): Promise<R> => {
      const r = await create(fixture.dep, over, tag);
      runs.push(r);
      return r;
    },
  };
  return fixture;
}
