/**
 * @platformatic/kafka's producer alone: send() of 256 messages at a time (convoy's producer
 * loop sends 256 per event-loop turn, and its adapter hands the library each turn's sends as one
 * send()), acks=all, 5 requests in flight, the Java-compatible murmur2 partitioner (as convoy's
 * adapter), at most maxInFlight messages awaiting their acks, nothing else per message.
 * Arguments and output: bench/bare/common.ts.
 */
import { compatibilityPartitioner, Producer } from '@platformatic/kafka';
import { bareArgs, keyList, produceInChunks } from './common.ts';

const a = bareArgs();
const producer = new Producer({ bootstrapBrokers: a.bootstrap.split(','), clientId: 'bench-bare', maxInflights: 5, acks: -1, partitioner: compatibilityPartitioner, autocreateTopics: false });
await producer.metadata({ topics: [a.topic] });
const payload = Buffer.alloc(a.size, 120);
await produceInChunks(a, keyList(a.keys).map((k) => Buffer.from(k)), (chunk) => producer.send({ messages: chunk.map((key) => ({ topic: a.topic, key, value: payload })) }));
await producer.close();
process.exit(0);
