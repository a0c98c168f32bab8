/**
 * Publishing one stored event through the broker's producer client, with its history: a send
 * event before the call (key, producer `gateway`, seq = the event's commit index in its order,
 * the service's `version`, the event id) and an ack event after. Shared by the instances and
 * the outbox relays.
 */
import { SendFailure, type ProducerClient } from '../broker/contract.ts';
import { nowMicros } from '../clock.ts';
import type { HistoryWriter } from '../history/writer.ts';
import type { Scenario } from '../spec/types.ts';
import { encodeMessage } from '../workload/codec.ts';
import { eventAt } from '../workload/entity.ts';
import type { WorkerStats } from '../workers/protocol.ts';
import type { StoredEvent } from './order-store.ts';

/** The logical producer of every event the service publishes. */
export const GATEWAY_PRODUCER = 'gateway';

export type Publish = (e: StoredEvent, intendedUs: number) => Promise<boolean>;

export function publisher(process: string, scenario: Scenario, client: ProducerClient, history: HistoryWriter, stats: WorkerStats): Publish {
  const entity = scenario.workload.entity;
  const size = scenario.workload.size.kind === 'fixed' ? scenario.workload.size.bytes : 256;
  return async (e, intendedUs) => {
    // The payload is numbered by commit order, the service's truth: consumers' strategies and
    // the checker see the order the service committed; the version rides in the history. Its
    // stamp is the change's commit time (the updated_at a service sets in its transaction),
    // not the publish time: an outbox relay publishes a batch within one millisecond, and
    // stamping then would make every event of the batch tie for lww-timestamp.
    const payload = encodeMessage(
      { producer: GATEWAY_PRODUCER, key: e.key, seq: e.commitIndex, intendedUs, poison: false, entity: entity.kind, event: eventAt(entity, e.key, e.commitIndex), stampMs: Math.floor(e.at / 1000) },
      size,
    );
    const at = nowMicros();
    history.write({ type: 'send', key: e.key, producer: GATEWAY_PRODUCER, seq: e.commitIndex, at, intended: intendedUs, process, size: payload.length, version: e.version, event: e.id });
    stats.sent++;
    stats.inFlight++;
    try {
      const ack = await client.send({ key: e.key, payload });
      stats.acked++;
      history.write({ type: 'ack', key: e.key, producer: GATEWAY_PRODUCER, seq: e.commitIndex, at: nowMicros(), ok: true, lane: ack.lane, offset: ack.offset, sent: at });
      return true;
    } catch (err) {
      const definite = err instanceof SendFailure && err.definite;
      if (definite) stats.failed++;
      else stats.unknown++;
      history.write({ type: 'ack', key: e.key, producer: GATEWAY_PRODUCER, seq: e.commitIndex, at: nowMicros(), ok: definite ? false : null, error: (err as Error).message, sent: at });
      return false;
    } finally {
      stats.inFlight--;
    }
  };
}
