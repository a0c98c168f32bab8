/**
 * Producer and consumer clients on @google-cloud/pubsub 5.x.
 *
 * Producer: topic.publishMessage with orderingKey = the message key when messageOrdering is on
 * (the topic then has messageOrdering: true, so the client publishes each key's messages in
 * order, one batch in flight per key). Outcomes of send():
 *   message id                              resolved; lane = the ordering key (or the subscription)
 *   gRPC INVALID_ARGUMENT, NOT_FOUND,        SendFailure definite=true: the service refused it
 *     FAILED_PRECONDITION, PERMISSION_DENIED,
 *     UNAUTHENTICATED, OUT_OF_RANGE, ...
 *   the key is paused (PublishError)        SendFailure definite=true: the client did not send it
 *   DEADLINE_EXCEEDED, UNAVAILABLE,         SendFailure definite=false: it may have been stored
 *     INTERNAL, ... (after the client's
 *     retries, within publisher.timeoutMs)
 * A failed publish with an ordering key pauses that key in the client, as documented: it fails
 * the publishes queued behind the failed batch and should fail every later one until
 * resumePublishing(key). @google-cloud/pubsub 5.3.1 forgets the pause as soon as the failed
 * batch is done (its per-key queue drains and is dropped), so later publishes go out anyway;
 * publisher.pausedKeys: convoy makes the producer hold the key itself. publisher.resume says
 * when convoy resumes the key (never, at once, after resumeDelayMs).
 *
 * Consumer: streaming pull with flowControl maxMessages = maxInFlight (allowExcessMessages off,
 * so the client holds no more than that). The harness's delivery gate hands them to
 * onDelivery one at a time per lane: lane = the ordering key when ordering is on, else the
 * subscription (one lane). deliveryCount = deliveryAttempt, which the service sets only when
 * the subscription has a dead-letter policy. The client extends each held message's deadline
 * until it is acked or nacked, for at most subscriber.maxExtensionSeconds. Settlement:
 *   ack          message.ack()
 *   requeue      message.nack() (deadline 0: redelivered now)
 *   dead-letter  message.nack(): redelivered until maxDeliveryAttempts, then the service moves
 *                it to the dead-letter topic (without a dead-letter policy: redelivered forever)
 *   release      nothing: the client keeps extending the deadline until maxExtensionSeconds,
 *                then stops, and the service redelivers it when the deadline expires (the
 *                message still counts against flow control meanwhile, as in the real client)
 */
import { Duration, PublishError, type Message, type PubSub, type Subscription, type Topic } from '@google-cloud/pubsub';
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
import { backoff, errMessage, namesOf, pubsubClient, type Names, type PubsubEndpoint } from './connection.ts';
import type { PubsubSettings } from './settings.ts';

/** gRPC codes with which the service refuses a request without storing anything. */
const REFUSED = new Set([
  3, // INVALID_ARGUMENT
  5, // NOT_FOUND
  6, // ALREADY_EXISTS
  7, // PERMISSION_DENIED
  9, // FAILED_PRECONDITION
  11, // OUT_OF_RANGE
  12, // UNIMPLEMENTED
  16, // UNAUTHENTICATED
]);

export function toSendFailure(err: unknown): SendFailure {
  if (err instanceof PublishError || (err instanceof Error && err.message.startsWith('Unable to publish for key'))) {
    return new SendFailure(`key paused after an earlier failed publish: ${err.message}`, true, { cause: err });
  }
  const code = (err as { code?: unknown }).code;
  const refused = typeof code === 'number' && REFUSED.has(code);
  return new SendFailure(`publish failed: ${errMessage(err)}`, refused, { cause: err });
}

/** A bound on a wait in close(): an unref'd timer, so it never keeps the process alive. */
function bound(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

async function withRetries<T>(what: string, timeoutMs: number, log: (l: string) => void, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${what}: ${errMessage(err)}`);
      if (attempt === 1) log(`${what} failed (${errMessage(err)}), retrying`);
      await sleep(backoff(attempt));
    }
  }
}

export class PubsubProducer implements ProducerClient {
  private readonly client: PubSub;
  private readonly topic: Topic;
  private readonly names: Names;
  private readonly resumeTimers = new Map<string, NodeJS.Timeout>();
  /** Keys convoy holds paused (publisher.pausedKeys: convoy), with the failure that paused them. */
  private readonly paused = new Map<string, string>();
  private closed = false;

  constructor(
    endpoint: PubsubEndpoint,
    private readonly settings: PubsubSettings,
    runNames: RunNames,
    private readonly options: ProducerOptions,
  ) {
    this.names = namesOf(settings, runNames);
    this.client = pubsubClient(endpoint);
    const p = settings.publisher;
    this.topic = this.client.topic(this.names.topic, {
      messageOrdering: settings.messageOrdering,
      batching: { maxMessages: p.batchMaxMessages, maxMilliseconds: p.batchMaxMs },
      gaxOpts: { timeout: p.timeoutMs },
    });
  }

  /** Checks (within timeoutMs) that the topic is there, so a missing broker fails the worker early. */
  async connect(timeoutMs = 30_000): Promise<this> {
    await withRetries(`producer ${this.options.id}: topic ${this.names.topic}`, timeoutMs, this.options.log, async () => {
      const [exists] = await this.topic.exists();
      if (!exists) throw new Error('topic does not exist');
    });
    return this;
  }

  async send(message: OutgoingMessage): Promise<SendAck> {
    if (this.closed) throw new SendFailure('producer closed', true);
    const ordered = this.settings.messageOrdering;
    const pausedBy = this.paused.get(message.key);
    if (pausedBy !== undefined) throw new SendFailure(`key paused by convoy after a failed publish (${pausedBy}); not sent`, true);
    try {
      // A consumer under test reads convoy's fields as attributes beside its data.
      await this.topic.publishMessage({ data: message.payload, ...(ordered ? { orderingKey: message.key } : {}), ...(message.headers ? { attributes: message.headers } : {}) });
      return { lane: ordered ? message.key : this.names.subscription };
    } catch (err) {
      const failure = toSendFailure(err);
      if (ordered) this.afterFailure(message.key, failure.message.split('\n')[0]!.slice(0, 160));
      throw failure;
    }
  }

  /**
   * The application's resumePublishing(key): the key publishes again, whatever publisher.resume
   * said (an outbox relay calls it before it sends the key's failed rows again, in order).
   */
  resumeKey(key: string): void {
    if (!this.settings.messageOrdering) return;
    clearTimeout(this.resumeTimers.get(key));
    this.resumeTimers.delete(key);
    this.paused.delete(key);
    this.topic.resumePublishing(key);
  }

  /** publisher.resume: when to let a paused key publish again. */
  private afterFailure(key: string, why: string): void {
    const { resume, resumeDelayMs, pausedKeys } = this.settings.publisher;
    const resumeNow = () => this.resumeKey(key);
    if (resume === 'immediate') {
      resumeNow();
      return;
    }
    if (pausedKeys === 'convoy' && !this.paused.has(key)) {
      this.paused.set(key, why);
      this.options.log(`producer ${this.options.id}: key ${key} paused after a failed publish (${resume === 'never' ? 'for the rest of the run' : `for ${resumeDelayMs} ms`})`);
    }
    if (resume === 'delayed' && !this.resumeTimers.has(key)) {
      const t = setTimeout(resumeNow, resumeDelayMs);
      t.unref();
      this.resumeTimers.set(key, t);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.resumeTimers.values()) clearTimeout(t);
    await Promise.race([this.topic.flush().catch(() => undefined), bound(5_000)]);
    await Promise.race([this.client.close().catch(() => undefined), bound(5_000)]);
  }
}

export class PubsubConsumer implements ConsumerClient {
  private readonly client: PubSub;
  private readonly names: Names;
  private subscription?: Subscription;
  private gate?: DeliveryGate;
  private closed = false;
  private isReady = false;
  private lastError = '';

  constructor(
    endpoint: PubsubEndpoint,
    private readonly settings: PubsubSettings,
    runNames: RunNames,
    private readonly options: ConsumerOptions,
  ) {
    this.names = namesOf(settings, runNames);
    this.client = pubsubClient(endpoint);
  }

  async start(onDelivery: OnDelivery): Promise<void> {
    if (this.gate) throw new Error('consumer already started');
    this.gate = new DeliveryGate(onDelivery, { id: this.options.id, maxInFlight: this.options.maxInFlight, log: this.options.log, onHandlerError: 'requeue', onRenewal: this.options.onRenewal });
    const s = this.settings;
    const deadline = Duration.from({ seconds: s.ackDeadlineSeconds });
    const sub = this.client.subscription(this.names.subscription, {
      flowControl: { maxMessages: this.options.maxInFlight, allowExcessMessages: false },
      minAckDeadline: deadline,
      maxAckDeadline: deadline,
      maxExtensionTime: Duration.from({ seconds: s.subscriber.maxExtensionSeconds }),
      streamingOptions: { maxStreams: s.subscriber.streams },
      batching: { maxMilliseconds: s.subscriber.ackBatchMs },
    });
    this.subscription = sub;
    sub.on('message', (msg: Message) => this.enqueue(msg));
    sub.on('error', (err: Error) => {
      this.lastError = errMessage(err);
      this.options.log(`consumer ${this.options.id}: subscriber error (${this.lastError})`);
    });
    sub.on('close', () => {
      if (this.closed) return;
      // The client gave up on its streams (a non-retryable status): open them again.
      this.options.log(`consumer ${this.options.id}: subscriber closed (${this.lastError || 'no error'}), reopening`);
      setTimeout(() => {
        if (!this.closed) sub.open();
      }, 1_000).unref();
    });
    void this.checkReady();
  }

  /** Ready once the subscription answers through the clients link (streams open with the listener). */
  private async checkReady(): Promise<void> {
    try {
      await withRetries(`consumer ${this.options.id}: subscription ${this.names.subscription}`, 120_000, this.options.log, async () => {
        if (this.closed) return;
        await this.subscription!.getMetadata();
      });
      this.isReady = true;
    } catch (err) {
      this.lastError = errMessage(err);
    }
  }

  async ready(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.isReady) {
      if (Date.now() > deadline) {
        throw new Error(`consumer ${this.options.id}: subscription not reachable within ${timeoutMs} ms${this.lastError ? ` (last error: ${this.lastError})` : ''}`);
      }
      await sleep(25);
    }
  }

  private laneOf(msg: Message): string {
    return this.settings.messageOrdering && msg.orderingKey ? msg.orderingKey : this.names.subscription;
  }

  private enqueue(msg: Message): void {
    if (this.closed) return; // the client nacks what it holds on close
    const lane = this.laneOf(msg);
    const attempt = msg.deliveryAttempt;
    let settled = false;
    void this.gate!.accept({
      payload: msg.data,
      lane,
      ...(attempt > 0 ? { deliveryCount: attempt } : {}),
      settle: async (how: Settlement): Promise<void> => {
        if (settled) throw new Error(`delivery on ${lane} settled twice`);
        settled = true;
        switch (how) {
          case 'ack':
            msg.ack();
            return;
          case 'requeue':
          case 'dead-letter':
            msg.nack();
            return;
          case 'release':
            return;
        }
      },
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.gate?.close();
    await Promise.race([this.subscription?.close().catch(() => undefined), bound(5_000)]);
    await Promise.race([this.client.close().catch(() => undefined), bound(5_000)]);
  }
}
