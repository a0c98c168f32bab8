/**
 * pubsub against the broker contract (test/broker/contract.ts) on convoy's own emulator
 * (broker.emulator: convoy, its own process behind Toxiproxy, as a run starts it), in the
 * topology that promises per-key order. conformance.test.ts runs the same on pstest.
 */
// @needs own pubsub beside
import { conformance } from '../../../test/broker/contract.ts';

conformance({ broker: 'pubsub', settings: { kind: 'pubsub', emulator: 'convoy', messageOrdering: true, ackDeadlineSeconds: 10 }, ordersKeys: true, handOverMs: 40_000, lanes: false });
