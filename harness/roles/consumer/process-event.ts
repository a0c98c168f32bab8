import type { Delivery } from '../../broker/contract.ts';
import type { ProcessEvent } from '../../history/events.ts';
import type { DecodedMessage } from '../../workload/codec.ts';

/** What every handling attempt of one delivery records the same. */
export type ProcessBase = Pick<ProcessEvent, 'key' | 'producer' | 'seq' | 'consumer' | 'lane' | 'offset' | 'deliveryCount' | 'intended' | 'stamp'>;

/**
 * A handling attempt's event, as `{ type: 'process', ...base, received, start, end: 0,
 * outcome: 'ok' }` with `effect` after them: the same keys in the same order, so the same JSON.
 * Written out because V8 builds that spread copy several times slower than this literal, and it
 * was most of the history's cost per event.
 */
export function processEvent(base: ProcessBase, received: number, start: number): ProcessEvent {
  return {
    type: 'process', key: base.key, producer: base.producer, seq: base.seq, consumer: base.consumer, lane: base.lane,
    offset: base.offset, deliveryCount: base.deliveryCount, intended: base.intended, stamp: base.stamp, received, start, end: 0, outcome: 'ok', effect: undefined,
  };
}

/**
 * processEvent(processBase(consumer, d, msg), received, start) for a decoded message, without
 * the base object in between (one object fewer per message on the consumer's usual path).
 */
export function deliveryEvent(consumer: string, d: Delivery, msg: DecodedMessage, received: number, start: number): ProcessEvent {
  return {
    type: 'process', key: msg.key, producer: msg.producer, seq: msg.seq, consumer, lane: d.lane,
    offset: d.offset, deliveryCount: d.deliveryCount, intended: msg.intendedUs, stamp: msg.stampMs, received, start, end: 0, outcome: 'ok', effect: undefined,
  };
}
