// A team's Node consumer (kafkajs), under test by convoy (docs/consumer-under-test.md).
//
//   node consumer.mjs buggy   eachBatch with partitionsConsumedConcurrently, and each batch's
//                             messages handled at once (Promise.all): per-key order is lost
//                             whenever a batch holds two messages of one key (a backlog after a
//                             stall does).
//   node consumer.mjs fixed   the same, but a batch's messages one after another: partitions
//                             run in parallel, each partition in order.
//
// It reads its connection from KAFKA_BOOTSTRAP_SERVERS, KAFKA_TOPIC and KAFKA_GROUP_ID, reports
// what it handles with convoy's reporter library, and keeps each order's version in a file of
// CONVOY_SERVICE_DIR/orders (its "database", which state.mjs prints for convoy).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { openReporter } from '../../../reporters/node/convoy-reporter.mjs';

const mode = process.argv[2];
if (mode !== 'buggy' && mode !== 'fixed') {
  console.error('usage: node consumer.mjs buggy|fixed');
  process.exit(2);
}
const env = process.env;
const report = await openReporter();
const kafka = new Kafka({ clientId: `orders-${env.CONVOY_PROCESS ?? 'local'}`, brokers: env.KAFKA_BOOTSTRAP_SERVERS.split(','), logLevel: logLevel.WARN });
const consumer = kafka.consumer({
  groupId: env.KAFKA_GROUP_ID,
  sessionTimeout: Number(env.KAFKA_SESSION_TIMEOUT_MS ?? 30000),
  heartbeatInterval: Number(env.KAFKA_HEARTBEAT_INTERVAL_MS ?? 3000),
  allowAutoTopicCreation: false,
});

/** The service's database: the last version written per order, one file each (state.mjs reads them). */
const db = join(env.CONVOY_SERVICE_DIR ?? '.', 'orders');
mkdirSync(db, { recursive: true });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function handle(message, partition) {
  report.start(message.headers, { lane: partition, offset: message.offset });
  const order = JSON.parse(message.value.toString());
  await sleep(1 + Math.random() * 4); // the order's database write
  writeFileSync(join(db, encodeURIComponent(order.orderId)), String(order.version));
  report.end(message.headers);
}

await consumer.connect();
await consumer.subscribe({ topic: env.KAFKA_TOPIC, fromBeginning: true });
consumer.on(consumer.events.GROUP_JOIN, () => report.ready());
await consumer.run({
  partitionsConsumedConcurrently: 4,
  eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
    if (mode === 'buggy') {
      await Promise.all(batch.messages.map((m) => handle(m, batch.partition)));
      for (const m of batch.messages) resolveOffset(m.offset);
    } else {
      for (const m of batch.messages) {
        await handle(m, batch.partition);
        resolveOffset(m.offset);
        await heartbeat();
      }
    }
  },
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, async () => {
    await consumer.disconnect().catch(() => {});
    await report.close();
    process.exit(0);
  });
}
