/**
 * kafkajs's producer alone: send() of 256 messages at a time (convoy's producer loop sends 256
 * per event-loop turn, and its adapter hands kafkajs each turn's sends as one send()), acks=all,
 * 5 requests in flight, at most maxInFlight messages awaiting their acks, nothing else per
 * message. Arguments and output: bench/bare/common.ts.
 */
import kafkajs from 'kafkajs';
import { bareArgs, busyWindow, keyList } from './common.ts';

const CHUNK = 256;
const a = bareArgs();
const kafka = new kafkajs.Kafka({ brokers: a.bootstrap.split(','), clientId: 'bench-bare', logLevel: kafkajs.logLevel.NOTHING });
const producer = kafka.producer({ maxInFlightRequests: 5, allowAutoTopicCreation: false, createPartitioner: kafkajs.Partitioners.DefaultPartitioner });
await producer.connect();
const keys = keyList(a.keys);
const payload = Buffer.alloc(a.size, 120);
let acked = 0;
let failed = 0;
let wake: (() => void) | undefined;
const window = busyWindow();
window.first();
for (let i = 0; i < a.messages; i += CHUNK) {
  while (i - acked >= a.maxInFlight) await new Promise<void>((r) => (wake = r));
  const n = Math.min(CHUNK, a.messages - i);
  const messages = Array.from({ length: n }, (_, j) => ({ key: keys[(i + j) % a.keys]!, value: payload }));
  producer.send({ topic: a.topic, acks: -1, messages }).then(
    () => {
      acked += n;
      wake?.();
    },
    () => {
      failed += n;
      acked += n;
      wake?.();
    },
  );
  // One chunk per event-loop turn, as convoy's producer loop.
  await new Promise<void>((r) => setImmediate(r));
}
while (acked < a.messages) await new Promise<void>((r) => (wake = r));
window.finish(a.messages - failed);
await producer.disconnect();
process.exit(0);
