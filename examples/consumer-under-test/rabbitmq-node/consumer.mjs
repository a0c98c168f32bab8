// A team's Node consumer (amqplib) on RabbitMQ, under test by convoy
// (docs/consumer-under-test.md): it consumes every queue in RABBITMQ_QUEUES with a prefetch of
// 20, handles each queue's messages one after another, and acks each once handled. With competing consumers on one queue (buggy.yaml) a
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
  // amqplib calls back for each prefetched message without waiting for the last: one chain per
  // queue handles them in the order they came.
  let previous = Promise.resolve();
  await channel.consume(queue, (msg) => {
    if (!msg) return;
    previous = previous.then(async () => {
      report.start(msg.properties.headers, { lane: queue });
      await sleep(1 + Math.random() * 2); // the order's database write
      report.end(msg.properties.headers);
      channel.ack(msg);
    });
  });
}
report.ready();

process.once('SIGTERM', async () => {
  await connection.close().catch(() => {});
  await report.close();
  process.exit(0);
});
