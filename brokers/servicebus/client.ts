/**
 * @azure/service-bus clients behind convoy's contract.
 *
 * Producer: one sender; the key is the session id (sessions on), the message id is unique
 * per send; convoy's fields for a consumer under test are application properties. Consumer,
 * sessions on: up to maxConcurrentSessions loops, each accepting the next
 * available session, handing out its messages one at a time in order (the lane is the session)
 * and giving the session up after it is idle for sessionIdleMs. Sessions off: one receive loop
 * on the queue (the lane is the queue). Settlement: ack -> complete, requeue -> abandon,
 * dead-letter -> deadLetter, release -> nothing (the lock expires; with autoLockRenewal off,
 * a handler slower than the lock duration loses its message to another receiver).
 * Sessions with returnSessionOnFailure (default): a requeue also abandons the rest of the
 * session's batch not handed out yet, before the loop receives again, so the abandoned message
 * comes again before them. Each of them counts a delivery (abandon raises the count), so a
 * message that never failed can reach MaxDeliveryCount and be dead-lettered.
 */
import { ServiceBusClient, type ServiceBusReceivedMessage, type ServiceBusReceiver } from '@azure/service-bus';
import {
  SendFailure,
  type ConsumerClient,
  type ConsumerOptions,
  type Delivery,
  type OutgoingMessage,
  type ProducerClient,
  type ProducerOptions,
  type RunNames,
  type SendAck,
  type Settlement,
  type OnDelivery,
} from '../../harness/broker/contract.ts';
import { sleep } from '../../harness/clock.ts';
import { DeliveryGate, type Incoming } from '../../harness/delivery/gate.ts';
import { throttledLog } from '../../harness/broker/throttled-log.ts';
import { queueName, type ServiceBusEndpoint } from './endpoint.ts';
import type { ServiceBusSettings } from './settings.ts';

export async function serviceBusProducer(endpoint: ServiceBusEndpoint, settings: ServiceBusSettings, names: RunNames, options: ProducerOptions): Promise<ProducerClient> {
  const client = new ServiceBusClient(endpoint.connectionString);
  const sender = client.createSender(queueName(names.prefix));
  let n = 0;
  return {
    async send(m: OutgoingMessage): Promise<SendAck> {
      try {
        // A consumer under test reads convoy's fields as application properties beside its body.
        await sender.sendMessages({ body: m.payload, sessionId: settings.sessions ? m.key : undefined, messageId: `${options.id}-${++n}`, contentType: 'application/octet-stream', ...(m.headers ? { applicationProperties: m.headers } : {}) });
        return { lane: settings.sessions ? m.key : queueName(names.prefix) };
      } catch (err) {
        // The SDK cannot tell whether a timed-out send was stored: never a definite failure.
        throw new SendFailure((err as Error).message, false, { cause: err });
      }
    },
    async close() {
      await sender.close();
      await client.close();
    },
  };
}

/** A delivery with the message it came from (for giving it back). */
type Received = Incoming & { message: ServiceBusReceivedMessage };

/** One session loop's give-back in progress (returnSessionOnFailure): the loop waits for it before it receives again. */
interface SessionHold {
  givingBack?: Promise<void>;
}

function payloadOf(m: ServiceBusReceivedMessage): Buffer {
  const b = m.body as unknown;
  if (Buffer.isBuffer(b)) return b;
  if (b instanceof Uint8Array) return Buffer.from(b);
  return Buffer.from(typeof b === 'string' ? b : JSON.stringify(b ?? null));
}

export class ServiceBusConsumer implements ConsumerClient {
  private readonly client: ServiceBusClient;
  private readonly queue: string;
  private closed = false;
  private loops: Promise<void>[] = [];
  private receivers = new Set<ServiceBusReceiver>();
  private started = false;
  private readonly sessionLog: (line: string) => void;

  constructor(endpoint: ServiceBusEndpoint, private readonly settings: ServiceBusSettings, names: RunNames, private readonly options: ConsumerOptions) {
    this.client = new ServiceBusClient(endpoint.connectionString);
    this.queue = queueName(names.prefix);
    const anySession = (line: string) => line.replace(/\bsession(?: with id)? \S+/g, 'session *');
    this.sessionLog = throttledLog(options.log, 5_000, anySession);
  }

  private receiverOptions() {
    return { receiveMode: 'peekLock' as const, maxAutoLockRenewalDurationInMs: this.settings.autoLockRenewal ? 300_000 : 0 };
  }

  private delivery(receiver: ServiceBusReceiver, m: ServiceBusReceivedMessage, lane: string, hold?: SessionHold): Received {
    let settled = false;
    return {
      message: m,
      payload: payloadOf(m),
      lane,
      offset: m.sequenceNumber !== undefined ? Number(m.sequenceNumber) : undefined,
      // The SDK reports the AMQP header's count of earlier failed deliveries (0 the first time);
      // the contract counts deliveries (1 the first time).
      deliveryCount: m.deliveryCount === undefined ? undefined : m.deliveryCount + 1,
      settle: async (how: Settlement) => {
        if (settled) return;
        settled = true;
        if (how === 'ack') await receiver.completeMessage(m);
        else if (how === 'requeue' && hold) await (hold.givingBack = this.giveBack(receiver, m, lane));
        else if (how === 'requeue') await receiver.abandonMessage(m);
        else if (how === 'dead-letter') await receiver.deadLetterMessage(m, { deadLetterReason: 'convoy', deadLetterErrorDescription: 'handler gave up' });
      },
    };
  }

  /**
   * Abandons a failed session message and then the session's deliveries waiting behind it in
   * the gate (the session loop abandons the rest of its batch itself): all of them come again,
   * in sequence order, under this or the next holder of the session's lock.
   */
  private async giveBack(receiver: ServiceBusReceiver, failed: ServiceBusReceivedMessage, lane: string): Promise<void> {
    const rest = (this.gate?.takeWaiting(lane) ?? []) as Received[];
    await receiver.abandonMessage(failed);
    for (const d of rest) await this.abandonUnhandled(receiver, d.message);
  }

  /** Gives back a message no handler saw: a failure is logged (the session lock was lost: it comes again anyway). */
  private async abandonUnhandled(receiver: ServiceBusReceiver, m: ServiceBusReceivedMessage): Promise<void> {
    await receiver.abandonMessage(m).catch((err) => this.sessionLog(`session ${String(m.sessionId)}: giving back failed: ${(err as Error).message}`));
  }

  private gate?: DeliveryGate;

  async start(onDelivery: OnDelivery): Promise<void> {
    this.started = true;
    const sessions = this.settings.sessions ? (this.settings.maxConcurrentSessions ?? Math.max(1, this.options.maxInFlight)) : 0;
    // Each session loop holds one delivery at a time of its own: its sessions are lanes worked on side by side.
    // A handler that throws leaves the message locked: the lock expires and it comes again.
    const gate = new DeliveryGate(onDelivery, { id: this.options.id, maxInFlight: this.options.maxInFlight, lanesAtOnce: sessions, log: this.options.log, onHandlerError: 'release', onRenewal: this.options.onRenewal });
    const accept = (d: Delivery) => gate.accept(d);
    this.gate = gate;
    this.closeGate = () => gate.close();
    if (!this.settings.sessions) {
      this.loops.push(this.queueLoop(accept));
      return;
    }
    for (let i = 0; i < sessions; i++) this.loops.push(this.sessionLoop(accept));
  }

  private closeGate?: () => void;

  private async queueLoop(onDelivery: (d: Delivery) => Promise<unknown>): Promise<void> {
    const receiver = this.client.createReceiver(this.queue, this.receiverOptions());
    this.receivers.add(receiver);
    while (!this.closed) {
      try {
        const batch = await receiver.receiveMessages(this.settings.receiveBatch, { maxWaitTimeInMs: 500 });
        for (const m of batch) {
          if (this.closed) break;
          await onDelivery(this.delivery(receiver, m, this.queue));
        }
      } catch (err) {
        if (!this.closed) this.options.log(`receive: ${(err as Error).message}`);
        await sleep(200);
      }
    }
  }

  private async sessionLoop(onDelivery: (d: Delivery) => Promise<unknown>): Promise<void> {
    while (!this.closed) {
      let receiver: ServiceBusReceiver & { sessionId?: string };
      try {
        receiver = await this.client.acceptNextSession(this.queue, { ...this.receiverOptions(), abortSignal: undefined } as never);
      } catch (err) {
        // No session available within the SDK's wait: try again.
        if (!this.closed && !/timed out|no.*session|ServiceTimeout|SessionCannotBeLocked/i.test((err as Error).message)) this.options.log(`accept session: ${(err as Error).message}`);
        await sleep(100);
        continue;
      }
      this.receivers.add(receiver);
      const sessionId = String(receiver.sessionId);
      this.options.onGroupEvent?.({ phase: 'assigned', lanes: [sessionId] });
      let idleSince = Date.now();
      const hold: SessionHold | undefined = this.settings.returnSessionOnFailure ? {} : undefined;
      try {
        while (!this.closed && Date.now() - idleSince < this.settings.sessionIdleMs) {
          const batch = await receiver.receiveMessages(this.settings.receiveBatch, { maxWaitTimeInMs: Math.min(500, this.settings.sessionIdleMs) });
          if (batch.length) idleSince = Date.now();
          for (const m of batch) {
            if (this.closed) break;
            // After a failed delivery of this batch, the rest goes back behind it unhandled.
            if (hold?.givingBack) {
              await hold.givingBack.catch(() => {});
              await this.abandonUnhandled(receiver, m);
              continue;
            }
            await onDelivery(this.delivery(receiver, m, sessionId, hold));
          }
          // Everything given back is available again before the next receive, so it comes first.
          if (hold?.givingBack) await hold.givingBack.catch(() => {});
          if (hold) hold.givingBack = undefined;
        }
      } catch (err) {
        // One line per kind of loss, not one per session: a lock shorter than the handler loses many.
        if (!this.closed) this.sessionLog(`session ${sessionId}: ${(err as Error).message}`);
      } finally {
        this.receivers.delete(receiver);
        this.options.onGroupEvent?.({ phase: 'revoked', lanes: [sessionId] });
        await receiver.close().catch(() => {});
      }
    }
  }

  async ready(_timeoutMs: number): Promise<void> {
    if (!this.started) throw new Error('servicebus consumer: ready() before start()');
  }

  async close(): Promise<void> {
    this.closed = true;
    this.closeGate?.();
    // At most 5 s for the loops, and no timer left behind when they end sooner.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(this.loops), new Promise((r) => (timer = setTimeout(r, 5_000)))]);
    clearTimeout(timer);
    for (const r of this.receivers) await r.close().catch(() => {});
    await this.client.close();
  }
}
