// A team's Node consumer (amqplib) on RabbitMQ, under test by convoy
// (docs/consumer-under-test.md): it consumes every queue in RABBITMQ_QUEUES with a prefetch of
// 20 and acks each message once handled. With competing consumers on one queue (buggy.yaml) a
// frozen process's prefetched messages are handled after newer ones; with a single active
// consumer (fixed.yaml) one process at a time reads the queue, in order.
import amqp from 'amqplib';
import { openReporter } from '../../../reporters/node/convoy-reporter.mjs';

const env = process.env;
const report = await openReporter();
const connection = await amqp.connect(env.RABBITMQ_URL);
const channel = await connection.createChannel();
await channel.prefetch(20);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

for (const queue of env.RABBITMQ_QUEUES.split(',')) {
  await channel.consume(queue, async (msg) => {
    if (!msg) return;
    report.start(msg.properties.headers, { lane: queue });
    await sleep(1 + Math.random() * 2); // the order's database write
    report.end(msg.properties.headers);
    channel.ack(msg);
  });
}
report.ready();

process.once('SIGTERM', async () => {
  await connection.close().catch(() => {});
  await report.close();
  process.exit(0);
});
