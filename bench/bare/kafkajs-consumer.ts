/**
 * kafkajs's consumer alone: eachBatch counting the batch's messages and nothing else (no
 * offsets resolved or committed), from the earliest offset with a fresh group. Arguments and
 * output: bench/bare/common.ts.
 */
import kafkajs from 'kafkajs';
import { bareArgs, busyWindow } from './common.ts';

const a = bareArgs();
const kafka = new kafkajs.Kafka({ brokers: a.bootstrap.split(','), clientId: 'bench-bare', logLevel: kafkajs.logLevel.NOTHING });
const consumer = kafka.consumer({ groupId: a.group, allowAutoTopicCreation: false });
await consumer.connect();
await consumer.subscribe({ topic: a.topic, fromBeginning: true });
const window = busyWindow();
let read = 0;
let done: () => void = () => {};
const finished = new Promise<void>((r) => (done = r));
const deadline = setTimeout(() => done(), 120_000);
await consumer.run({
  autoCommit: false,
  eachBatchAutoResolve: false,
  eachBatch: async ({ batch }) => {
    window.first();
    read += batch.messages.length;
    if (read >= a.messages) done();
  },
});
await finished;
clearTimeout(deadline);
window.finish(read);
await consumer.disconnect().catch(() => {});
process.exit(0);
