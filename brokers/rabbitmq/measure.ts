/**
 * Start-up time and memory of the local RabbitMQ node, for the README's figures:
 *   node --import tsx brokers/rabbitmq/measure.ts [messages=20000] [bytes=1024]
 * Starts a fresh private node (warm: the package is installed, the data folder is new),
 * restarts it on its data (SIGTERM, then start), pushes messages through Toxiproxy with one
 * producer and one consumer, and reports the Erlang VM's resident memory and its peak (VmHWM).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import rabbitmq from './index.ts';
import { deployLocal } from './local.ts';
import { processMemory } from '../../harness/runtime/process.ts';
import { runCleanup } from '../../harness/runtime/cleanup.ts';

const messages = Number(process.argv[2] ?? 20_000);
const bytes = Number(process.argv[3] ?? 1024);
const mb = (n: number | undefined) => (n === undefined ? '?' : `${(n / 1024 / 1024).toFixed(0)} MiB`);
const log = () => {};

async function main(): Promise<void> {
  const settings = rabbitmq.resolveSettings({ kind: 'rabbitmq', topology: 'hash-lanes', lanes: 4 });
  const t0 = Date.now();
  const dep = await deployLocal({ runtime: 'local', workDir: mkdtempSync(join(tmpdir(), 'convoy-rmq-measure-')), cacheDir: '', log, reuse: false }, settings as never);
  const deployMs = Date.now() - t0;
  try {
    console.log(`fresh node: healthy in ${(dep.startupMs / 1000).toFixed(1)} s (deploy incl. toxiproxy ${(deployMs / 1000).toFixed(1)} s), RSS ${mb(dep.memory()?.rssBytes)}`);
    const node = dep.nodes[0]!;
    const t1 = Date.now();
    await node.stop('SIGTERM');
    const stopMs = Date.now() - t1;
    const t2 = Date.now();
    await node.start();
    console.log(`restart on its data: stop ${(stopMs / 1000).toFixed(1)} s, start ${((Date.now() - t2) / 1000).toFixed(1)} s`);

    const names = { runId: 'measure', prefix: 'convoy-measure' };
    const admin = await rabbitmq.admin(dep.endpoint, settings, names);
    await admin.createDestinations();
    const producer = await rabbitmq.producer(dep.endpoint, settings, names, { id: 'p1', log });
    const consumer = await rabbitmq.consumer(dep.endpoint, settings, names, { id: 'c1', maxInFlight: 100, log });
    let received = 0;
    await consumer.start(async (d) => {
      received++;
      await d.settle('ack');
    });
    await consumer.ready(10_000);
    const body = Buffer.alloc(bytes, 'x');
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, processMemory(node.pid())?.rssBytes ?? 0);
    }, 100);
    const t3 = Date.now();
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < messages; i++) sends.push(producer.send({ key: `k${i % 1000}`, payload: body }));
    await Promise.all(sends);
    while (received < messages) await new Promise((r) => setTimeout(r, 20));
    const secs = (Date.now() - t3) / 1000;
    clearInterval(sampler);
    const mem = dep.memory();
    console.log(`${messages} x ${bytes} B through toxiproxy: ${secs.toFixed(1)} s (${Math.round(messages / secs)} msg/s end to end)`);
    console.log(`Erlang VM RSS now ${mb(mem?.rssBytes)}, sampled peak ${mb(peak)}, peak since restart (VmHWM) ${mb(mem?.peakRssBytes)}`);
    await consumer.close();
    await producer.close();
    await admin.deleteDestinations();
    await admin.close();
  } finally {
    await dep.stop();
    await runCleanup();
  }
}

await main();
