/**
 * Shared pieces of the Kafka integration tests: brokers per test file, the single node the test
 * suite holds (`@needs kafka`, bin/test-plan.js) unless the file asks for its own.
 */
import { after, before } from 'node:test';
import { reaperProcess } from '../../../harness/runtime/reaper.ts';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kafka from '../index.ts';
import type { KafkaAdmin } from '../admin.ts';
import { resolveSettings, type KafkaSettings } from '../settings.ts';
import type { ConsumerClient, ConsumerGroupEvent, Delivery, Deployment, ProducerClient, RunNames, SendAck, Settlement } from '../../../harness/broker/contract.ts';

export const quiet = (line: string) => {
  if (process.env.CONVOY_TEST_VERBOSE) process.stderr.write(`  ${line}\n`);
};

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

export function settings(over: Record<string, unknown> = {}): KafkaSettings {
  return resolveSettings({ kind: 'kafka', ...over });
}

/**
 * Starts brokers in a fresh temporary folder; the returned stop() stops them and removes the
 * folder (set CONVOY_TEST_KEEP=1 to keep logs and data). A failed start removes it too: the
 * error carries the broker's log lines. With `reuse`, a recorded broker of the same set-up (the
 * one the test suite holds) is used instead, and stop() leaves it running.
 */
export async function startKafka(over: Record<string, unknown> = {}, opts: { reuse?: boolean } = {}): Promise<{ dep: Deployment; workDir: string; ms: number; stop(): Promise<void> }> {
  const workDir = mkdtempSync(join(tmpdir(), 'convoy-kafka-test-'));
  const clean = () => {
    if (!process.env.CONVOY_TEST_KEEP) rmSync(workDir, { recursive: true, force: true });
  };
  const t = Date.now();
  let dep: Deployment;
  try {
    dep = await kafka.deploy({ runtime: 'local', workDir, cacheDir: '', log: quiet, reuse: opts.reuse ?? false }, settings(over));
  } catch (err) {
    clean();
    throw err;
  }
  return {
    dep,
    workDir,
    ms: Date.now() - t,
    stop: async () => {
      await dep.stop();
      clean();
    },
  };
}

/**
 * Brokers for the whole test file: started before its first test, stopped after its last; `dep` is
 * set once started. The suite's held Kafka when there is one.
 */
export function kafkaForFile(over: Record<string, unknown> = {}): { dep: Deployment } {
  const box = {} as { dep: Deployment };
  let stop: () => Promise<void> = async () => {};
  before(async () => {
    const started = await startKafka(over, { reuse: true });
    box.dep = started.dep;
    stop = started.stop;
  });
  after(async () => {
    await stop();
  });
  return box;
}

let counter = 0;
export function runNames(tag: string): RunNames {
  const runId = `${tag}-${process.pid}-${++counter}-${Date.now().toString(36)}`;
  return { runId, prefix: `convoy-${runId}` };
}

export const payload = (key: string, seq: number) => Buffer.from(JSON.stringify({ key, seq }));
export const parse = (d: { payload: Buffer }) => JSON.parse(d.payload.toString()) as { key: string; seq: number };

export interface Received {
  consumer: string;
  key: string;
  seq: number;
  lane: string;
  offset: number;
  deliveryCount?: number;
}

/** A run's admin, producers and consumers against one deployment, recording what arrives. */
export class Run {
  readonly received: Received[] = [];
  readonly groupEvents: { consumer: string; event: ConsumerGroupEvent }[] = [];
  readonly consumers = new Map<string, ConsumerClient>();
  private readonly closers: (() => Promise<void>)[] = [];
  admin!: KafkaAdmin;

  constructor(
    readonly dep: Deployment,
    readonly settings: KafkaSettings,
    readonly names: RunNames,
  ) {}

  async init(): Promise<this> {
    this.admin = (await kafka.admin(this.dep.endpoint, this.settings, this.names)) as KafkaAdmin;
    await this.admin.createDestinations();
    this.closers.push(async () => {
      await this.admin.deleteDestinations().catch(() => {});
      await this.admin.close();
    });
    return this;
  }

  async producer(id = 'p1', over?: KafkaSettings): Promise<ProducerClient> {
    const p = await kafka.producer(this.dep.endpoint, over ?? this.settings, this.names, { id, log: quiet });
    this.closers.push(() => p.close());
    return p;
  }

  /**
   * A consumer whose handler records and then settles with `decide` (default ack); `hold`
   * returns from the handler without settling (the test settles later).
   */
  async consumer(
    id: string,
    opts: { maxInFlight?: number; decide?: (d: Delivery, r: Received) => Settlement | 'hold' | Promise<Settlement | 'hold'> | undefined } = {},
  ): Promise<ConsumerClient> {
    const c = await kafka.consumer(this.dep.endpoint, this.settings, this.names, {
      id,
      maxInFlight: opts.maxInFlight ?? 1,
      log: quiet,
      onGroupEvent: (event) => this.groupEvents.push({ consumer: id, event }),
    });
    await c.start(async (d) => {
      const m = parse(d);
      const r: Received = { consumer: id, key: m.key, seq: m.seq, lane: d.lane!, offset: d.offset!, deliveryCount: d.deliveryCount };
      this.received.push(r);
      const how = (await opts.decide?.(d, r)) ?? 'ack';
      if (how !== 'hold') await d.settle(how);
    });
    this.consumers.set(id, c);
    this.closers.push(() => c.close());
    return c;
  }

  async close(): Promise<void> {
    for (const c of this.closers.splice(0).reverse()) await c().catch(() => {});
  }
}

/** Sends `perKey` messages for each key, each key's messages one after another (so order is defined). */
export async function sendKeyed(p: ProducerClient, keys: string[], perKey: number): Promise<Map<string, SendAck[]>> {
  const acks = new Map<string, SendAck[]>();
  await Promise.all(
    keys.map(async (key) => {
      const list: SendAck[] = [];
      for (let seq = 1; seq <= perKey; seq++) list.push(await p.send({ key, payload: payload(key, seq) }));
      acks.set(key, list);
    }),
  );
  return acks;
}

/** Living (non-zombie) child processes of this process, with their command lines. */
export function liveChildren(): string[] {
  const out: string[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      // tsx's esbuild service is a child of every test process that compiled something.
      // The harness's own reaper lives as long as the harness (here, the test process).
      if (Number(d) === reaperProcess()) continue;
      if (Number(rest[1]) === process.pid && rest[0] !== 'Z' && !/esbuild/.test(cmd)) out.push(`${d}: ${cmd.replace(/\0/g, ' ').slice(0, 200)}`);
    } catch {
      /* gone */
    }
  }
  return out;
}
