/**
 * Producer and consumer clients on amqplib. Both run their own reconnect loop (settings
 * `reconnect`): a dropped connection (a Toxiproxy `down`, a broker restart, a missed
 * heartbeat) fails what was in flight and the client connects again with backoff.
 *
 * Producer: a confirm channel, at most confirms.maxOutstanding publishes awaiting confirms,
 * mandatory publishes. Outcomes of send():
 *   basic.ack                          resolved; lane = the queue (hash-lanes: unknown, undefined)
 *   basic.return, then ack (no queue)  SendFailure definite=true: routed to no queue, not stored
 *   basic.nack                         SendFailure definite=false: RabbitMQ sends nack when the
 *                                      queue process could not take responsibility (an internal
 *                                      error); it does not promise that nothing was enqueued
 *   connection/channel lost, or no     SendFailure definite=false: it may have been written
 *   confirm within confirms.timeoutMs
 *   not connected (never published)    SendFailure definite=true
 *
 * Consumer: manual acks, basic.qos = settings.prefetch ?? maxInFlight per queue, one
 * basic.consume per queue of the run (one lane each). amqplib pushes messages; the harness's
 * delivery gate hands them to onDelivery one at a time per lane, at most maxInFlight unsettled.
 * Settlement: ack -> basic.ack; requeue -> basic.nack(requeue); dead-letter -> basic.nack(no
 * requeue) (to the retry/dead-letter exchange if configured, else dropped by the broker); release -> basic.nack(requeue), because RabbitMQ has no lock or visibility
 * timeout to let expire. deliveryCount: quorum queues say it (x-delivery-count + 1); classic
 * queues only say "redelivered", reported as 2 (a lower bound). Trips through the retry queue
 * (x-death, reason rejected) are added on top.
 */
import type * as amqp from 'amqplib';
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
import { DeliveryGate } from '../../harness/delivery/gate.ts';
import { backoff, closeConnection, openConnection, preferredNode, redact, type RabbitEndpoint } from './connection.ts';
import { destinations, KEY_HEADER, type Destinations } from './names.ts';
import type { RabbitSettings } from './settings.ts';

function withDeadline<T>(p: Promise<T>, deadline: number, what: string): Promise<T> {
  const ms = deadline - Date.now();
  if (ms <= 0) return Promise.reject(new Error(`${what}: timed out`));
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

const errMessage = (e: unknown) => (e instanceof Error ? e.message : String(e));

export class RabbitProducer implements ProducerClient {
  private readonly dest: Destinations;
  private conn?: amqp.ChannelModel;
  private ch?: amqp.ConfirmChannel;
  private opening?: Promise<amqp.ConfirmChannel>;
  private closed = false;
  private connectedOnce = false;
  private lastError = '';
  private outstanding = 0;
  private slotWaiters: (() => void)[] = [];
  private drained?: Promise<void>;
  private counter = 0;
  private readonly returned = new Set<string>();

  constructor(
    private readonly endpoint: RabbitEndpoint,
    private readonly settings: RabbitSettings,
    names: RunNames,
    private readonly options: ProducerOptions,
  ) {
    this.dest = destinations(settings, names, endpoint.queue);
  }

  /** Connects once (within timeoutMs) so a broker that is not there fails the worker early. */
  async connect(timeoutMs = 30_000): Promise<this> {
    await withDeadline(this.channel(), Date.now() + timeoutMs, `producer ${this.options.id}: connecting to ${redact(this.endpoint.url)}`).catch((err) => {
      throw new Error(`${errMessage(err)}${this.lastError ? ` (last error: ${this.lastError})` : ''}`);
    });
    return this;
  }

  private channel(): Promise<amqp.ConfirmChannel> {
    if (this.ch) return Promise.resolve(this.ch);
    if (this.connectedOnce && !this.settings.reconnect.enabled) {
      return Promise.reject(new Error(`connection lost and reconnect is disabled (${this.lastError})`));
    }
    this.opening ??= this.connectLoop().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private async connectLoop(): Promise<amqp.ConfirmChannel> {
    for (let attempt = 1; ; attempt++) {
      if (this.closed) throw new Error('producer closed');
      let conn: amqp.ChannelModel | undefined;
      try {
        conn = await openConnection(this.endpoint, { name: `convoy-producer-${this.options.id}`, heartbeatSeconds: this.settings.heartbeatSeconds, prefer: preferredNode(this.options.id) });
        const ch = await conn.createConfirmChannel();
        if (this.closed) {
          await closeConnection(conn);
          throw new Error('producer closed');
        }
        this.attach(conn, ch);
        if (this.connectedOnce) this.options.log(`producer ${this.options.id}: reconnected after ${attempt} attempt(s)`);
        this.connectedOnce = true;
        return ch;
      } catch (err) {
        if (this.closed) throw err;
        await closeConnection(conn);
        if (attempt === 1 || attempt % 20 === 0) this.options.log(`producer ${this.options.id}: connect failed (${errMessage(err)}), retrying`);
        this.lastError = errMessage(err);
        await sleep(backoff(attempt, this.settings.reconnect.maxDelayMs));
      }
    }
  }

  private attach(conn: amqp.ChannelModel, ch: amqp.ConfirmChannel): void {
    this.conn = conn;
    this.ch = ch;
    this.drained = undefined;
    ch.on('error', (err: Error) => {
      this.lastError = err.message;
    });
    ch.on('return', (msg: amqp.Message) => {
      if (msg.properties.messageId) this.returned.add(String(msg.properties.messageId));
    });
    const lost = (why: string) => {
      if (this.ch !== ch) return;
      this.ch = undefined;
      this.conn = undefined;
      this.lastError = why;
      if (!this.closed) this.options.log(`producer ${this.options.id}: connection lost (${why})`);
      void closeConnection(conn);
    };
    ch.on('close', () => lost(this.lastError || 'channel closed'));
    conn.on('close', (err?: Error) => lost(err?.message ?? 'connection closed'));
  }

  private async acquireSlot(deadline: number): Promise<void> {
    while (this.outstanding >= this.settings.confirms.maxOutstanding) {
      const wait = new Promise<void>((r) => this.slotWaiters.push(r));
      await withDeadline(wait, deadline, 'waiting for a free confirm slot');
    }
    this.outstanding++;
  }

  private releaseSlot(): void {
    this.outstanding--;
    this.slotWaiters.shift()?.();
  }

  async send(message: OutgoingMessage): Promise<SendAck> {
    if (this.closed) throw new SendFailure('producer closed', true);
    const timeoutMs = this.settings.confirms.timeoutMs;
    const deadline = Date.now() + timeoutMs;
    try {
      await this.acquireSlot(deadline);
    } catch (err) {
      throw new SendFailure(`not sent: ${errMessage(err)} (${this.settings.confirms.maxOutstanding} unconfirmed)`, true, { cause: err });
    }
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        this.releaseSlot();
      }
    };
    let ch: amqp.ConfirmChannel;
    try {
      ch = await withDeadline(this.channel(), deadline, 'connecting');
      if (this.drained) await withDeadline(this.drained, deadline, 'waiting for the socket to drain');
    } catch (err) {
      release();
      throw new SendFailure(`not sent: ${errMessage(err)}${this.lastError ? ` (last error: ${this.lastError})` : ''}`, true, { cause: err });
    }
    const id = `${this.options.id}-${++this.counter}`;
    const lane = this.settings.topology === 'hash-lanes' ? undefined : this.dest.queues[0];
    return new Promise<SendAck>((resolve, reject) => {
      let done = false;
      const timer = setTimeout(() => {
        if (done) return;
        done = true;
        reject(new SendFailure(`no publisher confirm within ${timeoutMs} ms`, false));
      }, Math.max(1, deadline - Date.now()));
      const confirm = (err: unknown) => {
        release();
        clearTimeout(timer);
        const wasReturned = this.returned.delete(id);
        if (done) return;
        done = true;
        if (err) {
          const m = errMessage(err);
          if (m === 'message nacked') reject(new SendFailure('broker nacked the publish (basic.nack: the queue could not take responsibility; it may or may not be enqueued)', false, { cause: err }));
          else reject(new SendFailure(`connection lost before the confirm (${this.lastError || m}): may have been written`, false, { cause: err }));
        } else if (wasReturned) {
          reject(new SendFailure(`unroutable: no queue bound for routing key on exchange "${this.dest.publishExchange}" (basic.return)`, true));
        } else {
          resolve(lane === undefined ? {} : { lane });
        }
      };
      try {
        const ok = ch.publish(
          this.dest.publishExchange,
          this.dest.routingKey(message.key),
          message.payload,
          { persistent: this.settings.persistent, mandatory: true, messageId: id, headers: { ...message.headers, [KEY_HEADER]: message.key } },
          confirm,
        );
        if (!ok && !this.drained) {
          this.drained = new Promise<void>((r) => {
            const done = () => {
              ch.removeListener('drain', done);
              ch.removeListener('close', done);
              if (this.ch === ch) this.drained = undefined;
              r();
            };
            ch.on('drain', done);
            ch.on('close', done);
          });
        }
      } catch (err) {
        // amqplib throws before writing when the channel is already closed: nothing was sent.
        release();
        clearTimeout(timer);
        done = true;
        reject(new SendFailure(`not sent: ${errMessage(err)}`, true, { cause: err }));
      }
    });
  }

  /** Waits (up to 5 s) for outstanding confirms, then closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    const { conn, ch } = this;
    this.conn = undefined;
    this.ch = undefined;
    if (ch && this.outstanding > 0) await withDeadline(ch.waitForConfirms(), Date.now() + 5_000, 'outstanding confirms').catch(() => {});
    await closeConnection(conn);
  }
}

interface Buffered {
  gen: number;
  ch: amqp.Channel;
  msg: amqp.ConsumeMessage;
  queue: string;
}


/** How many times the broker delivered this message (see the header comment). */
export function deliveryCountOf(msg: amqp.Message, queueType: RabbitSettings['queueType'], mainQueues: ReadonlySet<string>): number {
  const h = msg.properties.headers ?? {};
  const redelivered = (msg.fields as { redelivered?: boolean }).redelivered === true;
  let count: number;
  if (queueType === 'quorum' && h['x-delivery-count'] !== undefined) count = Number(h['x-delivery-count']) + 1;
  else count = redelivered ? 2 : 1;
  const deaths = Array.isArray(h['x-death']) ? (h['x-death'] as { queue?: string; reason?: string; count?: number }[]) : [];
  for (const d of deaths) {
    if (d.queue && mainQueues.has(d.queue) && (d.reason === 'rejected' || d.reason === 'delivery_limit')) count += Number(d.count ?? 1);
  }
  return count;
}

export class RabbitConsumer implements ConsumerClient {
  private readonly dest: Destinations;
  private readonly mainQueues: Set<string>;
  private gate?: DeliveryGate;
  private conn?: amqp.ChannelModel;
  private ch?: amqp.Channel;
  private parkChannel?: Promise<amqp.ConfirmChannel>;
  private gen = 0;
  private closed = false;
  private connecting = false;
  private isReady = false;
  private lastError = '';
  private readyWaiters: (() => void)[] = [];
  /** Per queue: the connection generation of its first delivery (the consumer became active on it). */
  private readonly assignedGen = new Map<string, number>();

  constructor(
    private readonly endpoint: RabbitEndpoint,
    private readonly settings: RabbitSettings,
    names: RunNames,
    private readonly options: ConsumerOptions,
  ) {
    this.dest = destinations(settings, names, endpoint.queue);
    this.mainQueues = new Set(this.dest.queues);
  }

  async start(onDelivery: OnDelivery): Promise<void> {
    if (this.gate) throw new Error('consumer already started');
    const onHandlerError = this.settings.requeueOnError ? 'requeue' : 'dead-letter';
    this.gate = new DeliveryGate(onDelivery, { id: this.options.id, maxInFlight: this.options.maxInFlight, log: this.options.log, onHandlerError, onRenewal: this.options.onRenewal });
    void this.connectLoop();
  }

  ready(timeoutMs: number): Promise<void> {
    if (this.isReady) return Promise.resolve();
    const wait = new Promise<void>((r) => this.readyWaiters.push(r));
    return withDeadline(wait, Date.now() + timeoutMs, `consumer ${this.options.id}: not consuming`).catch((err) => {
      throw new Error(`${errMessage(err)}${this.lastError ? ` (last error: ${this.lastError})` : ''}`);
    });
  }

  private async connectLoop(): Promise<void> {
    if (this.connecting) return;
    this.connecting = true;
    try {
      for (let attempt = 1; !this.closed; attempt++) {
        let conn: amqp.ChannelModel | undefined;
        try {
          conn = await openConnection(this.endpoint, { name: `convoy-consumer-${this.options.id}`, heartbeatSeconds: this.settings.heartbeatSeconds, prefer: preferredNode(this.options.id) });
          await this.subscribe(conn);
          if (attempt > 1 || this.gen > 1) this.options.log(`consumer ${this.options.id}: consuming again after ${attempt} attempt(s)`);
          return;
        } catch (err) {
          await closeConnection(conn);
          this.conn = undefined;
          this.lastError = errMessage(err);
          if (this.closed) return;
          if (attempt === 1 || attempt % 20 === 0) this.options.log(`consumer ${this.options.id}: connect/subscribe failed (${this.lastError}), retrying`);
          await sleep(backoff(attempt, this.settings.reconnect.maxDelayMs));
        }
      }
    } finally {
      this.connecting = false;
    }
  }

  private async subscribe(conn: amqp.ChannelModel): Promise<void> {
    const gen = ++this.gen;
    const ch = await conn.createChannel();
    ch.on('error', (err: Error) => {
      this.lastError = err.message;
    });
    let lostOnce = false;
    const lost = (why: string) => {
      if (lostOnce) return;
      lostOnce = true;
      void closeConnection(conn);
      if (this.gen !== gen) return;
      this.gen++; // deliveries buffered or handed out from this connection are now stale
      this.conn = undefined;
      this.ch = undefined;
      this.parkChannel = undefined;
      this.lastError = why;
      const held = [...this.assignedGen.entries()].filter(([, g]) => g === gen).map(([q]) => q);
      this.gate?.revokeAll(); // the broker requeues what this connection held
      if (held.length) this.options.onGroupEvent?.({ phase: 'revoked', lanes: held });
      if (this.closed) return;
      if (!this.settings.reconnect.enabled) {
        this.options.log(`consumer ${this.options.id}: connection lost (${why}); reconnect is disabled, consumer stopped`);
        return;
      }
      this.options.log(`consumer ${this.options.id}: connection lost (${why}), reconnecting`);
      void this.connectLoop();
    };
    ch.on('close', () => lost(this.lastError || 'channel closed'));
    conn.on('close', (err?: Error) => lost(err?.message ?? 'connection closed'));
    this.conn = conn;
    this.ch = ch;
    await ch.prefetch(this.settings.prefetch ?? this.options.maxInFlight, false);
    for (const queue of this.dest.queues) {
      await ch.consume(
        queue,
        (msg) => {
          if (!msg) {
            this.options.log(`consumer ${this.options.id}: the broker cancelled the consumer on ${queue}`);
            return;
          }
          this.enqueue({ gen, ch, msg, queue });
        },
        { noAck: false, consumerTag: `${this.options.id}.${queue}.${gen}` },
      );
    }
    if (lostOnce || this.gen !== gen) throw new Error(this.lastError || 'connection lost while subscribing');
    this.isReady = true;
    this.readyWaiters.splice(0).forEach((r) => r());
  }

  private enqueue(item: Buffered): void {
    if (this.assignedGen.get(item.queue) !== item.gen) {
      // The first delivery is when a single active consumer learns it became the active one.
      this.assignedGen.set(item.queue, item.gen);
      this.options.onGroupEvent?.({ phase: 'assigned', lanes: [item.queue] });
    }
    const { msg, queue } = item;
    const deliveryCount = deliveryCountOf(msg, this.settings.queueType, this.mainQueues);
    let settled = false;
    void this.gate!.accept({
      payload: msg.content,
      lane: queue,
      deliveryCount,
      // Not when its connection is gone: the broker requeued it then.
      claim: () => item.gen === this.gen && !this.closed,
      settle: async (how: Settlement): Promise<void> => {
        if (settled) throw new Error(`delivery on ${queue} settled twice`);
        settled = true;
        if (item.gen !== this.gen) return; // its channel is gone; the broker has already requeued it
        try {
          await this.settleOnBroker(item, how, deliveryCount);
        } catch (err) {
          this.options.log(`consumer ${this.options.id}: ${how} on ${queue} failed (${errMessage(err)}); the broker redelivers it`);
        }
      },
    });
  }

  private async settleOnBroker(item: Buffered, how: Settlement, deliveryCount: number): Promise<void> {
    const { ch, msg } = item;
    switch (how) {
      case 'ack':
        ch.ack(msg);
        return;
      case 'requeue':
      case 'release':
        ch.nack(msg, false, true);
        return;
      case 'dead-letter': {
        const max = this.settings.deadLetter.maxDeliveries;
        if (this.dest.retryQueue && this.dest.deadLetterExchange && max !== undefined && deliveryCount >= max) {
          await this.park(item);
          return;
        }
        ch.nack(msg, false, false);
        return;
      }
    }
  }

  /** Retry queue + maxDeliveries reached: publish a copy straight to the DLQ, then ack. */
  private async park(item: Buffered): Promise<void> {
    const conn = this.conn;
    if (!conn || item.gen !== this.gen) throw new Error('connection lost');
    this.parkChannel ??= conn.createConfirmChannel().then((c) => {
      c.on('error', () => {});
      return c;
    });
    const pc = await this.parkChannel;
    const { msg } = item;
    pc.publish(this.dest.deadLetterExchange!, msg.fields.routingKey, msg.content, {
      headers: { ...(msg.properties.headers ?? {}), 'convoy-parked-from': item.queue },
      persistent: msg.properties.deliveryMode === 2,
      messageId: msg.properties.messageId,
    });
    await pc.waitForConfirms();
    item.ch.ack(msg);
  }

  /**
   * Closes the channel first (so acks already written reach the broker before it; a
   * connection.close can overtake frames queued on other channels), then the connection.
   * Unacked deliveries go back to their queue.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.gen++;
    this.gate?.close();
    const { conn, ch } = this;
    this.conn = undefined;
    this.ch = undefined;
    if (ch) await withDeadline(ch.close(), Date.now() + 5_000, 'closing the channel').catch(() => {});
    await closeConnection(conn);
  }
}
