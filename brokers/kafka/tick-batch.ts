/**
 * The send() calls of one tick as one call to the client, in call order: for the Node clients
 * that have no linger of their own (kafkajs, @platformatic/kafka). Each message's partition is
 * chosen here (by the client's own partitioner, from its metadata) so that each message's
 * offset follows from the base offset the broker answers per partition.
 */
import { SendFailure, type OutgoingMessage, type ProducerClient, type SendAck } from '../../harness/broker/contract.ts';
import { laneOf } from './consumer-core.ts';

export interface TickMessage extends OutgoingMessage {
  partition: number;
}

interface Pending {
  message: OutgoingMessage;
  resolve: (a: SendAck) => void;
  reject: (e: unknown) => void;
}

/**
 * `sendAll` sends the tick's messages in one client call and resolves with the base offset of
 * each partition written (none with acks 0); `failure` says what its error means.
 */
export function tickBatcher(
  partitionFor: (key: string) => number,
  sendAll: (messages: TickMessage[]) => Promise<Map<number, number | undefined>>,
  failure: (err: unknown) => SendFailure,
): Pick<ProducerClient, 'send'> & { flush(): void; readonly pending: number } {
  let queue: Pending[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    const batch = queue;
    queue = [];
    if (!batch.length) return;
    const messages = batch.map((b): TickMessage => ({ ...b.message, partition: partitionFor(b.message.key) }));
    sendAll(messages).then(
      (base) => {
        const seen = new Map<number, number>();
        batch.forEach((b, i) => {
          const partition = messages[i]!.partition;
          const index = seen.get(partition) ?? 0;
          seen.set(partition, index + 1);
          const first = base.get(partition);
          b.resolve({ lane: laneOf(partition), offset: first === undefined ? undefined : first + index });
        });
      },
      (err: unknown) => {
        const f = failure(err);
        for (const b of batch) b.reject(f);
      },
    );
  };
  return {
    send(m: OutgoingMessage): Promise<SendAck> {
      return new Promise((resolve, reject) => {
        queue.push({ message: m, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    flush,
    get pending() {
      return queue.length;
    },
  };
}
