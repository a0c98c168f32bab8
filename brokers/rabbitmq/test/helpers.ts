/**
 * Shared pieces of the RabbitMQ integration tests: a node per test file, the one the test suite
 * holds (`@needs rabbitmq`, bin/test-plan.js) unless the file asks for its own.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import rabbitmq from '../index.ts';
import { deployLocal, type RabbitDeployment } from '../local.ts';
import { resolveSettings, type RabbitSettings } from '../settings.ts';
import type { ConsumerClient, ConsumerGroupEvent, Delivery, Deployment, ProducerClient, RunNames, Settlement } from '../../../harness/broker/contract.ts';

import { quiet, runNames } from '../../../test/helpers/broker-run.ts';

export { quiet, runNames } from '../../../test/helpers/broker-run.ts';

/** `own`: a node of the file's own, for a test that kills or restarts it; else the held one when there is one. */
export async function startNode(opts: { own?: boolean } = {}): Promise<RabbitDeployment> {
  const workDir = mkdtempSync(join(tmpdir(), 'convoy-rmq-test-'));
  return deployLocal({ runtime: 'local', workDir, cacheDir: '', log: quiet, reuse: !opts.own }, resolveSettings({ kind: 'rabbitmq' }));
}

/** Test settings: no metadata flush (a rabbitmqctl call) unless a test asks, to save time. */
export function settings(over: Record<string, unknown>): RabbitSettings {
  return resolveSettings({ kind: 'rabbitmq', syncMetadata: false, ...over });
}

export const payload = (key: string, seq: number) => Buffer.from(JSON.stringify({ key, seq }));
export const parse = (d: Delivery) => JSON.parse(d.payload.toString()) as { key: string; seq: number };
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
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
}

/** A run's admin, producer and consumers, with everything handled recorded in order. */
export class Harness {
  readonly handled: Handled[] = [];
  readonly groupEvents: { consumer: string; event: ConsumerGroupEvent }[] = [];
  readonly consumers = new Map<string, ConsumerClient>();
  private readonly closers: (() => Promise<void>)[] = [];
  admin!: Awaited<ReturnType<typeof rabbitmq.admin>>;

  constructor(
    readonly dep: Pick<Deployment, 'endpoint'>,
    readonly settings: RabbitSettings,
    readonly names: RunNames,
  ) {}

  static async create(dep: Pick<Deployment, 'endpoint'>, over: Record<string, unknown>, tag: string): Promise<Harness> {
    const h = new Harness(dep, settings(over), runNames(tag));
    h.admin = await rabbitmq.admin(dep.endpoint, h.settings, h.names);
    await h.admin.createDestinations();
    return h;
  }

  async producer(id = 'p1'): Promise<ProducerClient> {
    const p = await rabbitmq.producer(this.dep.endpoint, this.settings, this.names, { id, log: quiet });
    this.closers.push(() => p.close());
    return p;
  }

  /** handler decides the settlement (default ack) and may take its time. */
  async consumer(
    id: string,
    handler: (h: Handled, d: Delivery) => Promise<Settlement | 'none'> | Settlement | 'none' = () => 'ack',
    maxInFlight = 10,
  ): Promise<ConsumerClient> {
    const c = await rabbitmq.consumer(this.dep.endpoint, this.settings, this.names, {
      id,
      maxInFlight,
      log: quiet,
      onGroupEvent: (event) => this.groupEvents.push({ consumer: id, event }),
    });
    this.consumers.set(id, c);
    this.closers.push(() => c.close());
    await c.start(async (d) => {
      const m = parse(d);
      const rec: Handled = { consumer: id, key: m.key, seq: m.seq, lane: d.lane, deliveryCount: d.deliveryCount };
      this.handled.push(rec);
      const how = await handler(rec, d);
      if (how !== 'none') await d.settle(how);
    });
    await c.ready(10_000);
    return c;
  }

  async close(opts: { keepDestinations?: boolean } = {}): Promise<void> {
    for (const c of this.closers.reverse()) await c().catch(() => {});
    if (!opts.keepDestinations) await this.admin.deleteDestinations().catch(() => {});
    await this.admin.close();
  }
}
