/** The memory broker against the broker contract, in both topologies (test/broker/contract.ts). */
import { conformance } from '../../../test/broker/contract.ts';

conformance({ broker: 'memory', settings: { kind: 'memory', mode: 'partitioned', partitions: 3, rebalanceDelayMs: 50 }, ordersKeys: true, handOverMs: 5_000, lanes: true });
conformance({ broker: 'memory', settings: { kind: 'memory', mode: 'queue', visibilityMs: 500 }, ordersKeys: true, handOverMs: 5_000, lanes: true });
