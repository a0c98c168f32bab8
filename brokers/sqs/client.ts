/**
 * Producer and consumer clients on @aws-sdk/client-sqs v3.
 *
 * Bodies: the payload is binary and an SQS body must be text, so bodies are base64; for a
 * consumer under test (docs/consumer-under-test.md) the body is its payload's text, and convoy's
 * fields go as String message attributes beside it.
 *
 * Producer: SendMessage (or SendMessageBatch, producer.batchSize) to the run's main queue.
 * FIFO: MessageGroupId = the message key and MessageDeduplicationId = producer.key.seq from the
 * payload header (deduplication: explicit) or none (content: the queue hashes the body). With
 * producer.serializePerKey a key's next send starts only after its previous one finished, so
 * the queue sees each key's messages in send order. Outcomes of send():
 *   200 (or the entry in Successful)          resolved; lane = MessageGroupId (FIFO) or the queue
 *   4xx from the service, or an entry in      SendFailure definite=true: the service refused it
 *     Failed of a batch
 *   5xx, timeout, connection lost or          SendFailure definite=false: the request (or one of
 *     refused (after the SDK's retries)         the SDK's attempts) may have been stored
 *
 * Consumer: one or more long-poll loops (ReceiveMessage, WaitTimeSeconds, up to
 * receive.maxMessages and never more than the free in-flight slots, so a consumer never holds
 * messages it cannot start on while their visibility timeout runs). The harness's delivery gate
 * hands them to onDelivery one at a time per lane: lane = MessageGroupId on a FIFO queue;
 * a standard queue has no groups, so its lane is the queue itself. deliveryCount =
 * ApproximateReceiveCount. Settlement:
 *   ack          DeleteMessage
 *   requeue      ChangeMessageVisibility 0 (visible again now)
 *   release      nothing: the message reappears when its visibility timeout expires
 *   dead-letter  deadLetter.settle exhaust-receives: ChangeMessageVisibility 0, received again
 *                until the queue's RedrivePolicy moves it after maxReceiveCount receives;
 *                move: SendMessage to the DLQ, then DeleteMessage;
 *                without a DLQ: DeleteMessage (dropped, as SQS has nowhere to put it)
 * With receive.extendVisibility, a message handled or held unsettled longer than half its
 * visibility timeout has it extended to the whole timeout again (renewed through the gate,
 * which asks every quarter of the timeout at most: visibilitySchedule).
 * FIFO with receive.returnGroupOnFailure (default): requeue, release and dead-letter
 * (exhaust-receives) also give back the later messages of the group received in the same
 * batch and not handed out yet (visibility 0, or left to expire for release), so the failed
 * message is handled again before them.
 * A delete or visibility change with an expired receipt handle fails (the message was
 * received again meanwhile): logged, and the broker delivers it again.
 */
import { createHash } from 'node:crypto';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type Message,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { DeliveryGate, type Incoming } from '../../harness/delivery/gate.ts';
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
import { decodeMessage } from '../../harness/workload/codec.ts';
import { messageIdOf } from '../../harness/service/message.ts';
import { backoff, errMessage, queuesOf, sqsClient, type Queues, type SqsEndpoint } from './connection.ts';
import type { SqsSettings } from './settings.ts';

/** Printable ASCII, 1-128 characters: what SQS accepts as a group or deduplication id. */
const ID_CHARS = /^[\x21-\x7e]{1,128}$/;

/** producer.key.seq from the payload header (or, for a consumer under test, its headers); the fallback when it has none. */
export function deduplicationId(payload: Buffer, fallback: string, headers?: Record<string, string>): string {
  const m = headers ? messageIdOf(headers) : decodeMessage(payload);
  const id = m ? `${m.producer}.${m.key}.${m.seq}` : fallback;
  return ID_CHARS.test(id) ? id : createHash('sha256').update(id).digest('hex');
}

/** SequenceNumber as an offset when it fits a JS number exactly (ElasticMQ's do; AWS's are 20 digits). */
function offsetOf(seq: string | undefined): number | undefined {
  if (!seq) return undefined;
  const n = Number(seq);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A bound on a wait in close(): an unref'd timer, so it never keeps the process alive. */
function bound(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

interface AwsError {
  name?: string;
  $metadata?: { httpStatusCode?: number; attempts?: number };
  $fault?: 'client' | 'server';
}

/** Definite only when the service answered with a client error: it did not store the message. */
export function toSendFailure(err: unknown, what: string): SendFailure {
  const e = err as AwsError;
  const status = e.$metadata?.httpStatusCode;
  const refused = status !== undefined && status >= 400 && status < 500 && e.$fault === 'client' && !/Throttl|RequestTimeout/i.test(e.name ?? '');
  const how = status ? `HTTP ${status}` : 'no answer';
  return new SendFailure(`${what}: ${errMessage(err)} (${how}${e.$metadata?.attempts ? `, ${e.$metadata.attempts} attempt(s)` : ''})`, refused, { cause: err });
}

async function resolveQueueUrl(client: SQSClient, queue: string, timeoutMs: number, log: (l: string) => void, who: string): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return (await client.send(new GetQueueUrlCommand({ QueueName: queue }))).QueueUrl!;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${who}: cannot find queue ${queue}: ${errMessage(err)}`);
      if (attempt === 1) log(`${who}: GetQueueUrl ${queue} failed (${errMessage(err)}), retrying`);
      await sleep(backoff(attempt));
    }
  }
}

interface Pending {
  entry: SendMessageBatchRequestEntry;
  resolve: (ack: SendAck) => void;
  reject: (err: unknown) => void;
}

export class SqsProducer implements ProducerClient {
  private readonly client: SQSClient;
  private readonly queues: Queues;
  private queueUrl = '';
  private closed = false;
  private counter = 0;
  /** The tail of each key's send chain (serializePerKey). */
  private readonly chains = new Map<string, Promise<unknown>>();
  private batch: Pending[] = [];
  private batchTimer?: NodeJS.Timeout;

  constructor(
    endpoint: SqsEndpoint,
    private readonly settings: SqsSettings,
    names: RunNames,
    private readonly options: ProducerOptions,
  ) {
    this.client = sqsClient(endpoint, settings);
    this.queues = queuesOf(settings, names);
  }

  async connect(timeoutMs = 30_000): Promise<this> {
    this.queueUrl = await resolveQueueUrl(this.client, this.queues.main, timeoutMs, this.options.log, `producer ${this.options.id}`);
    return this;
  }

  private entry(message: OutgoingMessage): SendMessageBatchRequestEntry {
    const { headers } = message;
    const entry: SendMessageBatchRequestEntry = { Id: String(++this.counter), MessageBody: message.payload.toString(headers ? 'utf8' : 'base64') };
    if (headers) entry.MessageAttributes = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, { DataType: 'String', StringValue: v }]));
    if (this.settings.queueType === 'fifo') {
      entry.MessageGroupId = message.key;
      if (this.settings.deduplication === 'explicit') entry.MessageDeduplicationId = deduplicationId(message.payload, `${this.options.id}.${this.counter}`, headers);
    }
    return entry;
  }

  private ackOf(entry: SendMessageBatchRequestEntry, sequenceNumber?: string): SendAck {
    const lane = entry.MessageGroupId ?? this.queues.main;
    const offset = offsetOf(sequenceNumber);
    return offset === undefined ? { lane } : { lane, offset };
  }

  send(message: OutgoingMessage): Promise<SendAck> {
    if (this.closed) return Promise.reject(new SendFailure('producer closed', true));
    if (!this.settings.producer.serializePerKey) return this.sendNow(message);
    const prev = this.chains.get(message.key);
    const p = prev ? prev.then(() => this.sendNow(message)) : this.sendNow(message);
    const tail = p.catch(() => undefined);
    this.chains.set(message.key, tail);
    void tail.then(() => {
      if (this.chains.get(message.key) === tail) this.chains.delete(message.key);
    });
    return p;
  }

  private async sendNow(message: OutgoingMessage): Promise<SendAck> {
    if (this.closed) throw new SendFailure('producer closed', true);
    const entry = this.entry(message);
    if (this.settings.producer.batchSize <= 1) {
      try {
        const { Id: _id, ...fields } = entry;
        const r = await this.client.send(new SendMessageCommand({ QueueUrl: this.queueUrl, ...fields }));
        return this.ackOf(entry, r.SequenceNumber);
      } catch (err) {
        throw toSendFailure(err, 'SendMessage');
      }
    }
    return new Promise<SendAck>((resolve, reject) => {
      this.batch.push({ entry, resolve, reject });
      if (this.batch.length >= this.settings.producer.batchSize) this.flush();
      else this.batchTimer ??= setTimeout(() => this.flush(), this.settings.producer.lingerMs);
    });
  }

  private flush(): void {
    clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    const batch = this.batch.splice(0, this.settings.producer.batchSize);
    if (this.batch.length) this.batchTimer = setTimeout(() => this.flush(), 0);
    if (batch.length === 0) return;
    this.client.send(new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: batch.map((b) => b.entry) })).then(
      (r) => {
        const ok = new Map((r.Successful ?? []).map((s) => [s.Id, s]));
        const failed = new Map((r.Failed ?? []).map((f) => [f.Id, f]));
        for (const b of batch) {
          const s = ok.get(b.entry.Id);
          const f = failed.get(b.entry.Id);
          if (s) b.resolve(this.ackOf(b.entry, s.SequenceNumber));
          else if (f) b.reject(new SendFailure(`SendMessageBatch entry failed: ${f.Code}: ${f.Message ?? ''}`, true));
          else b.reject(new SendFailure('SendMessageBatch: entry missing from the answer', false));
        }
      },
      (err) => {
        for (const b of batch) b.reject(toSendFailure(err, 'SendMessageBatch'));
      },
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.batch.length) this.flush();
    await Promise.race([Promise.allSettled([...this.chains.values()]), bound(5_000)]);
    this.client.destroy();
  }
}

/** A received message as the delivery gate holds it. */
interface Received extends Incoming {
  msg: Message;
  lane: string;
}

export class SqsConsumer implements ConsumerClient {
  private readonly client: SQSClient;
  private readonly queues: Queues;
  private queueUrl = '';
  private deadLetterUrl?: string;
  private gate?: DeliveryGate;
  private closed = false;
  private isReady = false;
  private lastError = '';
  private capacityWaiters: (() => void)[] = [];
  private readyWaiters: (() => void)[] = [];
  private readonly abort = new AbortController();
  private pollers: Promise<void>[] = [];
  private warnedNoDlq = false;

  constructor(
    endpoint: SqsEndpoint,
    private readonly settings: SqsSettings,
    names: RunNames,
    private readonly options: ConsumerOptions,
  ) {
    this.client = sqsClient(endpoint, settings);
    this.queues = queuesOf(settings, names);
  }

  async start(onDelivery: OnDelivery): Promise<void> {
    if (this.gate) throw new Error('consumer already started');
    const { id, maxInFlight, log } = this.options;
    const keepAliveMs = visibilitySchedule(this.settings.visibilityTimeoutSeconds).askEveryMs;
    this.gate = new DeliveryGate(onDelivery, { id, maxInFlight, log, onHandlerError: 'requeue', keepAliveMs, onFree: () => this.wakeCapacity(), onRenewal: this.options.onRenewal });
    const who = `consumer ${this.options.id}`;
    this.queueUrl = await resolveQueueUrl(this.client, this.queues.main, 60_000, this.options.log, who);
    if (this.queues.deadLetter && this.settings.deadLetter.settle === 'move') {
      this.deadLetterUrl = await resolveQueueUrl(this.client, this.queues.deadLetter, 60_000, this.options.log, who);
    }
    for (let i = 0; i < this.settings.receive.pollers; i++) this.pollers.push(this.poll());
  }

  ready(timeoutMs: number): Promise<void> {
    if (this.isReady) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`consumer ${this.options.id}: no ReceiveMessage succeeded within ${timeoutMs} ms${this.lastError ? ` (last error: ${this.lastError})` : ''}`)), timeoutMs);
      this.readyWaiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  private reserved = 0;

  private async poll(): Promise<void> {
    const { maxMessages, waitTimeSeconds } = this.settings.receive;
    for (let failures = 0; !this.closed; ) {
      // Received and not yet settled: waiting in the gate or in a handler.
      const free = this.options.maxInFlight - this.gate!.unsettled - this.reserved;
      if (free <= 0) {
        await new Promise<void>((r) => this.capacityWaiters.push(r));
        continue;
      }
      const n = Math.min(maxMessages, free);
      this.reserved += n;
      let messages: Message[] = [];
      try {
        const r = await this.client.send(
          new ReceiveMessageCommand({
            QueueUrl: this.queueUrl,
            MaxNumberOfMessages: n,
            WaitTimeSeconds: waitTimeSeconds,
            MessageSystemAttributeNames: ['All'],
          }),
          { abortSignal: this.abort.signal },
        );
        messages = r.Messages ?? [];
        if (failures > 0) this.options.log(`consumer ${this.options.id}: receiving again after ${failures} failed attempt(s)`);
        failures = 0;
        if (!this.isReady) {
          this.isReady = true;
          this.readyWaiters.splice(0).forEach((w) => w());
        }
      } catch (err) {
        if (this.closed) break;
        failures++;
        this.lastError = errMessage(err);
        if (failures === 1 || failures % 20 === 0) this.options.log(`consumer ${this.options.id}: ReceiveMessage failed (${this.lastError}), retrying`);
        await sleep(backoff(failures));
      } finally {
        this.reserved -= n;
      }
      for (const msg of messages) {
        if (this.closed) {
          // Received after close began: give it back at once.
          void this.changeVisibility(msg, 0).catch(() => {});
          continue;
        }
        const lane = this.settings.queueType === 'fifo' ? (msg.Attributes?.MessageGroupId ?? '') : this.queues.main;
        void this.gate!.accept(this.delivery(msg, lane));
      }
    }
  }

  private wakeCapacity(): void {
    this.capacityWaiters.splice(0).forEach((r) => r());
  }

  private delivery(msg: Message, lane: string): Received {
    const offset = offsetOf(msg.Attributes?.SequenceNumber);
    const count = Number(msg.Attributes?.ApproximateReceiveCount);
    let settled = false;
    return {
      msg,
      payload: Buffer.from(msg.Body ?? '', 'base64'),
      lane,
      ...(offset === undefined ? {} : { offset }),
      ...(Number.isFinite(count) && count > 0 ? { deliveryCount: count } : {}),
      ...(this.settings.receive.extendVisibility ? { renew: this.visibilityExtender(msg) } : {}),
      settle: async (how: Settlement): Promise<void> => {
        if (settled) throw new Error(`delivery on ${lane} settled twice`);
        settled = true;
        // The group's later messages of the batch, not handed out yet, go back with it.
        const rest = this.returnsGroup(how) ? (this.gate!.takeWaiting(lane) as Received[]) : [];
        try {
          await this.settleOnBroker(msg, how);
        } catch (err) {
          this.options.log(`consumer ${this.options.id}: ${how} on ${lane} failed (${errMessage(err)}); the queue delivers it again`);
        }
        // After the failed one: the group's order on the queue is by sequence number anyway.
        if (rest.length && how !== 'release') {
          await Promise.allSettled(rest.map((i) => this.changeVisibility(i.msg, 0)));
        }
      },
    };
  }

  /**
   * The gate asks every visibilitySchedule().askEveryMs; the visibility is extended once half of
   * it has passed since the receive or the last extension, so a held message costs one call per
   * half timeout. Resolves false when nothing was due.
   */
  private visibilityExtender(msg: Message): () => Promise<boolean> {
    const seconds = this.settings.visibilityTimeoutSeconds;
    const { extendAfterMs } = visibilitySchedule(seconds);
    let since = Date.now();
    return async () => {
      if (Date.now() - since < extendAfterMs) return false;
      const at = Date.now();
      await this.changeVisibility(msg, seconds);
      since = at;
      return true;
    };
  }

  /** Whether settling this way gives back the rest of the group's batch (see settings). */
  private returnsGroup(how: Settlement): boolean {
    if (this.settings.queueType !== 'fifo' || !this.settings.receive.returnGroupOnFailure) return false;
    if (how === 'requeue' || how === 'release') return true;
    return how === 'dead-letter' && !!this.queues.deadLetter && this.settings.deadLetter.settle === 'exhaust-receives';
  }

  private changeVisibility(msg: Message, seconds: number): Promise<unknown> {
    return this.client.send(new ChangeMessageVisibilityCommand({ QueueUrl: this.queueUrl, ReceiptHandle: msg.ReceiptHandle!, VisibilityTimeout: seconds }));
  }

  private remove(msg: Message): Promise<unknown> {
    return this.client.send(new DeleteMessageCommand({ QueueUrl: this.queueUrl, ReceiptHandle: msg.ReceiptHandle! }));
  }

  private async settleOnBroker(msg: Message, how: Settlement): Promise<void> {
    switch (how) {
      case 'ack':
        await this.remove(msg);
        return;
      case 'requeue':
        await this.changeVisibility(msg, 0);
        return;
      case 'release':
        return;
      case 'dead-letter': {
        if (!this.queues.deadLetter) {
          if (!this.warnedNoDlq) this.options.log(`consumer ${this.options.id}: dead-letter without a DLQ (broker.deadLetter): deleting the message`);
          this.warnedNoDlq = true;
          await this.remove(msg);
          return;
        }
        if (this.settings.deadLetter.settle === 'exhaust-receives') {
          await this.changeVisibility(msg, 0);
          return;
        }
        const fifo = this.settings.queueType === 'fifo';
        await this.client.send(
          new SendMessageCommand({
            QueueUrl: this.deadLetterUrl!,
            MessageBody: msg.Body ?? '',
            ...(fifo ? { MessageGroupId: msg.Attributes?.MessageGroupId, MessageDeduplicationId: `dl-${msg.MessageId}`.slice(0, 128) } : {}),
          }),
        );
        await this.remove(msg);
        return;
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // What was received but never handed out goes back below, so another consumer gets it now
    // rather than after the visibility timeout.
    const left = (this.gate?.close() ?? []) as Received[];
    this.wakeCapacity();
    this.abort.abort();
    await Promise.race([Promise.allSettled(this.pollers), bound(3_000)]);
    await Promise.race([Promise.allSettled(left.map((i) => this.changeVisibility(i.msg, 0))), bound(3_000)]);
    this.client.destroy();
  }
}

/**
 * When receive.extendVisibility renews a message: extended once half the timeout has passed,
 * asked every quarter of it (at most every second), so the extension is sent by three quarters
 * of the timeout and a quarter is left for its round trip. The gate asked every second: with a
 * 2 s timeout the extension could come at 2 s, as the message reappeared, and a second consumer
 * received it (a full-suite failure) — the harness, not SQS, broke the group's order.
 */
export function visibilitySchedule(visibilityTimeoutSeconds: number): { askEveryMs: number; extendAfterMs: number } {
  const timeoutMs = visibilityTimeoutSeconds * 1000;
  return { askEveryMs: Math.min(1_000, timeoutMs / 4), extendAfterMs: timeoutMs / 2 };
}
