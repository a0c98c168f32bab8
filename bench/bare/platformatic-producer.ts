/**
 * @platformatic/kafka's producer alone: send() of 256 messages at a time (convoy's producer
 * loop sends 256 per event-loop turn, and its adapter hands the library each turn's sends as one
 * send()), acks=all, 5 requests in flight, the Java-compatible murmur2 partitioner (as convoy's
 * adapter), at most maxInFlight messages awaiting their acks, nothing else per message.
 * Arguments and output: bench/bare/common.ts.
 */
import { compatibilityPartitioner, Producer } from '@platformatic/kafka';
import { bareArgs, busyWindow, keyList } from './common.ts';

const CHUNK = 256;
const a = bareArgs();
const producer = new Producer({ bootstrapBrokers: a.bootstrap.split(','), clientId: 'bench-bare', maxInflights: 5, acks: -1, partitioner: compatibilityPartitioner, autocreateTopics: false });
const keys = keyList(a.keys).map((k) => Buffer.from(k));
const payload = Buffer.alloc(a.size, 120);
await producer.metadata({ topics: [a.topic] });
let acked = 0;
let failed = 0;
let wake: (() => void) | undefined;
const window = busyWindow();
window.first();
for (let i = 0; i < a.messages; i += CHUNK) {
  while (i - acked >= a.maxInFlight) await new Promise<void>((r) => (wake = r));
  const n = Math.min(CHUNK, a.messages - i);
  const messages = Array.from({ length: n }, (_, j) => ({ topic: a.topic, key: keys[(i + j) % a.keys]!, value: payload }));
  producer.send({ messages }).then(
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
await producer.close();
process.exit(0);
