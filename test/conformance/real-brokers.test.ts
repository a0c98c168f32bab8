/**
 * Every real broker against the broker contract (test/conformance/contract.ts), each in the
 * topology that promises per-key order, with timeouts short enough for a test. The memory
 * broker passes the same tests in brokers/memory/test/conformance.test.ts.
 */
import { conformance } from './contract.ts';

conformance({ broker: 'kafka', settings: { kind: 'kafka', client: 'kafkajs', topic: { partitions: 3 } }, ordersKeys: true, handOverMs: 45_000, lanes: true, addPartitions: true });
conformance({ broker: 'kafka', settings: { kind: 'kafka', client: 'confluent', topic: { partitions: 3 } }, ordersKeys: true, handOverMs: 45_000, lanes: true, addPartitions: true });
conformance({ broker: 'rabbitmq', settings: { kind: 'rabbitmq', topology: 'single-active' }, ordersKeys: true, handOverMs: 20_000, lanes: true, addPartitions: false });
conformance({ broker: 'sqs', settings: { kind: 'sqs', queueType: 'fifo', visibilityTimeoutSeconds: 2 }, ordersKeys: true, handOverMs: 20_000, lanes: false, addPartitions: false });
conformance({ broker: 'pubsub', settings: { kind: 'pubsub', messageOrdering: true, ackDeadlineSeconds: 10 }, ordersKeys: true, handOverMs: 40_000, lanes: false, addPartitions: false });
// One message per receive: with a batch, the messages received behind an abandoned one are
// already in the client's hands and are handled before it comes back (the adapter does not
// give them back as the SQS one does), so a requeue breaks the session's order.
conformance({ broker: 'servicebus', settings: { kind: 'servicebus', sessions: true, lockDurationMs: 5_000, receiveBatch: 1 }, ordersKeys: true, handOverMs: 30_000, lanes: true, addPartitions: false });
conformance({ broker: 'servicebus', settings: { kind: 'servicebus', sessions: false, lockDurationMs: 5_000 }, ordersKeys: false, handOverMs: 30_000, lanes: true, addPartitions: false });
