/**
 * kafkajs's producer alone: send() of 256 messages at a time (convoy's producer loop sends 256
 * per event-loop turn, and its adapter hands kafkajs each turn's sends as one send()), acks=all,
 * 5 requests in flight, at most maxInFlight messages awaiting their acks, nothing else per
 * message. Arguments and output: bench/bare/common.ts.
 */
import kafkajs from 'kafkajs';
import { bareArgs, keyList, produceInChunks } from './common.ts';

const a = bareArgs();
const kafka = new kafkajs.Kafka({ brokers: a.bootstrap.split(','), clientId: 'bench-bare', logLevel: kafkajs.logLevel.NOTHING });
const producer = kafka.producer({ maxInFlightRequests: 5, allowAutoTopicCreation: false, createPartitioner: kafkajs.Partitioners.DefaultPartitioner });
await producer.connect();
const payload = Buffer.alloc(a.size, 120);
await produceInChunks(a, keyList(a.keys), (chunk) => producer.send({ topic: a.topic, acks: -1, messages: chunk.map((key) => ({ key, value: payload })) }));
await producer.disconnect();
process.exit(0);
