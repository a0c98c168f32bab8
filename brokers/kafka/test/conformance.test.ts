/**
 * kafka against the broker contract (test/broker/contract.ts), in the topology that promises
 * per-key order, with timeouts short enough for a test; on the broker the test suite keeps up.
 * The memory broker passes the same tests in brokers/memory/test/conformance.test.ts.
 */
// @needs kafka
import { conformance } from '../../../test/broker/contract.ts';

conformance({ broker: 'kafka', settings: { kind: 'kafka', client: 'kafkajs', topic: { partitions: 3 } }, ordersKeys: true, handOverMs: 45_000, lanes: true });
conformance({ broker: 'kafka', settings: { kind: 'kafka', client: 'confluent', topic: { partitions: 3 } }, ordersKeys: true, handOverMs: 45_000, lanes: true });
conformance({ broker: 'kafka', settings: { kind: 'kafka', client: 'platformatic', topic: { partitions: 3 } }, ordersKeys: true, handOverMs: 45_000, lanes: true });
// The same through the reference client in a process of its own (the client protocol).
conformance({ broker: 'kafka', settings: { kind: 'kafka', client: 'kafkajs', topic: { partitions: 3 }, clientProcess: {} }, ordersKeys: true, handOverMs: 45_000, lanes: true });
// Apache Kafka's Java client, behind the client protocol.
conformance({ broker: 'kafka', settings: { kind: 'kafka', client: 'java', topic: { partitions: 3 } }, ordersKeys: true, handOverMs: 45_000, lanes: true });
