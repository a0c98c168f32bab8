/**
 * The fastest JavaScript consumer on convoy's librdkafka binding, as a reference for
 * `npm run bench -- consume`: @confluentinc/kafka-javascript's native KafkaConsumer reading
 * with `consume(1000)` (the call convoy's consumer makes) and doing nothing per message but
 * count it. Its rate is what the binding allows a Node process here; convoy's consumer path
 * divided by it is what the harness itself costs.
 *
 * A child process: node --import tsx bench/bare-consumer.ts <bootstrap> <topic> <group> <messages>.
 * Prints one JSON line: { messages, firstMs, lastMs, cpuMs } (busy window: first message to last).
 */
import { loadConfluent } from '../brokers/kafka/client-confluent.ts';

const [bootstrap, topic, group, wanted] = process.argv.slice(2) as [string, string, string, string];
const messages = Number(wanted);
const { KafkaConsumer } = loadConfluent();
const consumer = new KafkaConsumer(
  { 'bootstrap.servers': bootstrap, 'group.id': group, 'enable.auto.commit': false, 'allow.auto.create.topics': false },
  { 'auto.offset.reset': 'earliest' },
);
await new Promise<void>((resolve, reject) => consumer.connect({}, (err) => (err ? reject(err) : resolve())));
consumer.setDefaultConsumeTimeout(100);
// In the binding, not in its typings: later messages of a batch do not wait the timeout again.
(consumer as unknown as { setDefaultIsTimeoutOnlyForFirstMessage(on: boolean): void }).setDefaultIsTimeoutOnlyForFirstMessage(true);
consumer.subscribe([topic]);
const cpu0 = process.cpuUsage();
let read = 0;
let firstMs = 0;
const deadline = Date.now() + 120_000;
while (read < messages && Date.now() < deadline) {
  const batch = await new Promise<unknown[]>((resolve) => consumer.consume(1000, (err, ms) => resolve(err ? [] : (ms ?? []))));
  if (batch.length && !firstMs) firstMs = performance.now();
  read += batch.length;
}
const lastMs = performance.now();
const cpu = process.cpuUsage(cpu0);
process.stdout.write(`${JSON.stringify({ messages: read, firstMs, lastMs, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
await new Promise<void>((resolve) => consumer.disconnect(() => resolve()));
process.exit(0);
