/**
 * rabbitmq against the broker contract (test/broker/contract.ts), in the topology that promises
 * per-key order, with timeouts short enough for a test; on the broker the test suite keeps up.
 * The memory broker passes the same tests in brokers/memory/test/conformance.test.ts.
 */
// @needs rabbitmq
import { conformance } from '../../../test/broker/contract.ts';

conformance({ broker: 'rabbitmq', settings: { kind: 'rabbitmq', topology: 'single-active' }, ordersKeys: true, handOverMs: 20_000, lanes: true });
