/**
 * pubsub against the broker contract (test/broker/contract.ts), in the topology that promises
 * per-key order, with timeouts short enough for a test; on the broker the test suite keeps up.
 * The memory broker passes the same tests in brokers/memory/test/conformance.test.ts.
 */
// @needs pubsub
import { conformance } from '../../../test/broker/contract.ts';

conformance({ broker: 'pubsub', settings: { kind: 'pubsub', messageOrdering: true, ackDeadlineSeconds: 10 }, ordersKeys: true, handOverMs: 40_000, lanes: false });
