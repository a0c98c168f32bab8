/** Shared pieces of the Pub/Sub integration tests: one pstest-server per test file. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pubsub from '../../brokers/pubsub/index.ts';
import type { PubsubAdmin } from '../../brokers/pubsub/admin.ts';
import { deployLocal, type PubsubDeployment } from '../../brokers/pubsub/local.ts';
import { resolveSettings, type PubsubSettings } from '../../brokers/pubsub/settings.ts';
import type { ConsumerClient, Delivery, ProducerClient, RunNames, Settlement } from '../../harness/broker/contract.ts';
import { decodeMessage, encodeMessage } from '../../harness/workload/codec.ts';

export const quiet = (line: string) => {
  if (process.env.CONVOY_TEST_VERBOSE) process.stderr.write(`  ${line}\n`);
};

export async function startPstest(): Promise<PubsubDeployment> {
  const workDir = mkdtempSync(join(tmpdir(), 'convoy-pubsub-test-'));
  return deployLocal({ runtime: 'local', workDir, cacheDir: '', log: quiet, reuse: false }, resolveSettings({ kind: 'pubsub' }));
}

let runCounter = 0;
export function runNames(tag: string): RunNames {
  const runId = `${tag}-${process.pid}-${++runCounter}-${Date.now().toString(36)}`;
  return { runId, prefix: `convoy-${runId}` };
}

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
export class Run {
  readonly handled: Handled[] = [];
  private readonly closers: (() => Promise<void>)[] = [];
  admin!: PubsubAdmin;

  constructor(
    readonly dep: PubsubDeployment,
    readonly settings: PubsubSettings,
    readonly names: RunNames,
  ) {}

  static async create(dep: PubsubDeployment, over: Record<string, unknown>, tag: string): Promise<Run> {
    const r = new Run(dep, resolveSettings({ kind: 'pubsub', ...over }), runNames(tag));
    r.admin = (await pubsub.admin(dep.endpoint, r.settings, r.names)) as PubsubAdmin;
    await r.admin.createDestinations();
    return r;
  }

  async producer(id = 'p1'): Promise<ProducerClient> {
    const p = await pubsub.producer(this.dep.endpoint, this.settings, this.names, { id, log: quiet });
    this.closers.push(() => p.close());
    return p;
  }

  /** Sends seq 1..n for each key, interleaved, all at once (open loop). */
  async sendAll(p: ProducerClient, keys: string[], perKey: number, from = 1): Promise<void> {
    const sends: Promise<unknown>[] = [];
    for (let seq = from; seq < from + perKey; seq++) for (const key of keys) sends.push(p.send({ key, payload: payload(key, seq) }));
    await Promise.all(sends);
  }

  /** handler decides the settlement; with `early` the client is released at once (unordered mode). */
  async consumer(id: string, handler: Handler = () => 'ack', opts: { maxInFlight?: number; early?: boolean } = {}): Promise<ConsumerClient> {
    const c = await pubsub.consumer(this.dep.endpoint, this.settings, this.names, { id, maxInFlight: opts.maxInFlight ?? 10, log: quiet });
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

  of(key: string): Handled[] {
    return this.handled.filter((h) => h.key === key);
  }

  acked(): number {
    return new Set(this.handled.filter((h) => h.settled === 'ack').map((h) => `${h.key}#${h.seq}`)).size;
  }

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
