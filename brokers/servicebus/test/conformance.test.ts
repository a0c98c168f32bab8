/**
 * servicebus against the broker contract (test/broker/contract.ts), in the topology that promises
 * per-key order, with timeouts short enough for a test; on the broker the test suite keeps up.
 * The memory broker passes the same tests in brokers/memory/test/conformance.test.ts.
 */
// @needs servicebus
import { conformance } from '../../../test/broker/contract.ts';

// One message per receive: with a batch, the messages received behind an abandoned one are
// already in the client's hands and are handled before it comes back (the adapter does not
// give them back as the SQS one does), so a requeue breaks the session's order.
conformance({ broker: 'servicebus', settings: { kind: 'servicebus', sessions: true, lockDurationMs: 5_000, receiveBatch: 1 }, ordersKeys: true, handOverMs: 30_000, lanes: true });
conformance({ broker: 'servicebus', settings: { kind: 'servicebus', sessions: false, lockDurationMs: 5_000 }, ordersKeys: false, handOverMs: 30_000, lanes: true });
