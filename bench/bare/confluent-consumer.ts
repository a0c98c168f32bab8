/**
 * The librdkafka binding's consumer alone: @confluentinc/kafka-javascript's native
 * KafkaConsumer reading with `consume(500)` (the call convoy's consumer makes) and doing
 * nothing per message but count it, from the earliest offset with a fresh group. Its rate is
 * what the binding allows a Node process here; convoy's consumer path divided by it is what the
 * harness itself costs. Arguments and output: bench/bare/common.ts.
 */
import { loadConfluent } from '../../brokers/kafka/client-confluent.ts';
import { bareArgs, busyWindow } from './common.ts';

const a = bareArgs();
const { KafkaConsumer } = loadConfluent();
const consumer = new KafkaConsumer(
  { 'bootstrap.servers': a.bootstrap, 'group.id': a.group, 'enable.auto.commit': false, 'allow.auto.create.topics': false },
  { 'auto.offset.reset': 'earliest' },
);
await new Promise<void>((resolve, reject) => consumer.connect({}, (err) => (err ? reject(err) : resolve())));
consumer.setDefaultConsumeTimeout(100);
// In the binding, not in its typings: later messages of a batch do not wait the timeout again.
(consumer as unknown as { setDefaultIsTimeoutOnlyForFirstMessage(on: boolean): void }).setDefaultIsTimeoutOnlyForFirstMessage(true);
consumer.subscribe([a.topic]);
const window = busyWindow();
let read = 0;
const deadline = Date.now() + 120_000;
while (read < a.messages && Date.now() < deadline) {
  const batch = await new Promise<unknown[]>((resolve) => consumer.consume(500, (err, ms) => resolve(err ? [] : (ms ?? []))));
  if (batch.length) window.first();
  read += batch.length;
}
window.finish(read);
await new Promise<void>((resolve) => consumer.disconnect(() => resolve()));
process.exit(0);
