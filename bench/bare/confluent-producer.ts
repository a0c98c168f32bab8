/**
 * The librdkafka binding's producer alone (@confluentinc/kafka-javascript's node-rdkafka-style
 * `Producer`, the API convoy's adapter uses, with convoy's default settings: acks=all, linger
 * 5 ms, batch.size 1 MB, 5 requests in flight): produce() per message with a number as its
 * opaque, at most maxInFlight awaiting their delivery reports, nothing else per message.
 * Arguments and output: bench/bare/common.ts.
 */
import { loadConfluent } from '../../brokers/kafka/client-confluent.ts';
import { bareArgs, busyWindow, keyList } from './common.ts';

const a = bareArgs();
const { Producer } = loadConfluent();
const producer = new Producer({
  'bootstrap.servers': a.bootstrap, acks: 'all', 'enable.idempotence': false, 'max.in.flight.requests.per.connection': 5,
  'linger.ms': 5, 'batch.size': 1_000_000, partitioner: 'murmur2_random', dr_cb: true,
} as never) as unknown as {
  connect(o: unknown, cb: (err: unknown) => void): void;
  produce(topic: string, partition: number | null, value: Buffer, key: string, timestamp: number | null, opaque: number): unknown;
  setPollInBackground(on: boolean): void;
  getMetadata(o: unknown, cb: (err: unknown) => void): void;
  disconnect(timeout: number, cb: (err: unknown) => void): void;
  on(event: string, fn: (...x: never[]) => void): void;
};
const keys = keyList(a.keys);
const payload = Buffer.alloc(a.size, 120);
let acked = 0;
let failed = 0;
let wake: (() => void) | undefined;
producer.on('delivery-report', ((err: unknown) => {
  if (err) failed++;
  acked++;
  wake?.();
}) as never);
await new Promise<void>((resolve, reject) => producer.connect(null, (err) => (err ? reject(err) : resolve())));
producer.setPollInBackground(true);
await new Promise<void>((resolve) => producer.getMetadata({ topic: a.topic, timeout: 10_000 }, () => resolve()));
const window = busyWindow();
window.first();
for (let i = 0; i < a.messages; i++) {
  while (i - acked >= a.maxInFlight) await new Promise<void>((r) => (wake = r));
  try {
    producer.produce(a.topic, null, payload, keys[i % a.keys]!, null, i);
  } catch {
    failed++;
    acked++;
  }
}
while (acked < a.messages) await new Promise<void>((r) => (wake = r));
window.finish(a.messages - failed);
await new Promise<void>((resolve) => producer.disconnect(5_000, () => resolve()));
process.exit(0);
