/**
 * The memory broker's clients: thin, because the broker keeps every delivery rule (harness
 * contract) itself. The consumer passes each pushed delivery to onDelivery and tells the broker
 * when it was handed over; settlement is one call. Neither waits for an answer (PeerLink.tell):
 * the broker reads them in order, before anything the consumer says later.
 */
import type {
  ConsumerClient, ConsumerOptions, Delivery, OutgoingMessage, ProducerClient, ProducerOptions, RunNames, SendAck, Settlement,
  OnDelivery,
} from '../../harness/broker/contract.ts';
import type { PeerLink } from '../../harness/broker/in-process.ts';
import { DeliveryGate } from '../../harness/delivery/gate.ts';
import type { Push } from './broker.ts';
import { linkTo, type MemoryEndpoint } from './deploy.ts';

export class MemoryProducer implements ProducerClient {
  private readonly link: PeerLink;

  constructor(endpoint: MemoryEndpoint, private readonly names: RunNames, options: ProducerOptions) {
    this.link = linkTo(endpoint, options.id);
  }

  async send(m: OutgoingMessage): Promise<SendAck> {
    // Bytes cross the link as base64 (its calls are JSON: over a worker's stream to the runner, or directly).
    return (await this.link.call('send', { prefix: this.names.prefix, key: m.key, payload: m.payload.toString('base64') })) as SendAck;
  }

  async close(): Promise<void> {
    this.link.close();
  }
}

export class MemoryConsumer implements ConsumerClient {
  private readonly link: PeerLink;
  private assigned?: () => void;
  private readonly isAssigned = new Promise<void>((r) => (this.assigned = r));

  constructor(endpoint: MemoryEndpoint, private readonly names: RunNames, private readonly options: ConsumerOptions) {
    this.link = linkTo(endpoint, options.id);
  }

  async start(onDelivery: OnDelivery): Promise<void> {
    const prefix = this.names.prefix;
    const { id, maxInFlight, log } = this.options;
    const gate = new DeliveryGate(onDelivery, { id, maxInFlight, log, onHandlerError: 'requeue', onRenewal: this.options.onRenewal });
    this.link.onPush((raw) => {
      const p = raw as Push;
      if (p.type === 'group') {
        this.options.onGroupEvent?.({ phase: p.phase, lanes: p.lanes, generation: p.generation });
        if (p.phase === 'assigned') this.assigned?.();
        return;
      }
      const d: Delivery = {
        payload: Buffer.from(p.payload, 'base64'),
        lane: p.lane,
        offset: p.offset,
        deliveryCount: p.deliveryCount,
        settle: async (how: Settlement) => this.link.tell('settle', { prefix, id: p.id, how }),
      };
      void gate.accept(d).then(() => this.link.tell('handed', { prefix, id: p.id }));
    });
    await this.link.call('subscribe', { prefix, maxInFlight: this.options.maxInFlight });
  }

  async ready(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.isAssigned,
      new Promise<void>((_, reject) => (timer = setTimeout(() => reject(new Error(`memory broker: no lanes assigned within ${timeoutMs} ms`)), timeoutMs))),
    ]).finally(() => clearTimeout(timer));
  }

  async close(): Promise<void> {
    this.link.close();
  }
}
