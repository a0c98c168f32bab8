/**
 * Creates and deletes the run's queues (see connection.ts for names), through the emulator's
 * own port (adminUrl) so network faults on the `clients` link do not hit it, and the optional
 * capabilities faults look for: redriveDeadLetters and describeConsumerGroup.
 *
 *   main queue   <prefix>-main[.fifo]   FifoQueue, ContentBasedDeduplication, VisibilityTimeout,
 *                                       RedrivePolicy {deadLetterTargetArn, maxReceiveCount}
 *   dead letters <prefix>-dlq[.fifo]    (same type as the main queue: SQS requires it)
 */
import {
  ChangeMessageVisibilityBatchCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type Message,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { BrokerAdmin, RemainingReport, RunNames } from '../../harness/broker/contract.ts';
import { queuesOf, sqsClient, type Queues, type SqsEndpoint } from './connection.ts';
import type { SqsSettings } from './settings.ts';

/** Message attribute counting how often convoy redrove a message. */
export const REDRIVE_ATTRIBUTE = 'convoy-redriven';

/** The CreateQueue attributes of the main queue (and, without RedrivePolicy, of the DLQ). */
export function queueAttributes(settings: SqsSettings, deadLetterArn?: string): Record<string, string> {
  const attrs: Record<string, string> = { VisibilityTimeout: String(settings.visibilityTimeoutSeconds) };
  if (settings.queueType === 'fifo') {
    attrs.FifoQueue = 'true';
    attrs.ContentBasedDeduplication = String(settings.contentBasedDeduplication);
  }
  if (deadLetterArn) {
    attrs.RedrivePolicy = JSON.stringify({ deadLetterTargetArn: deadLetterArn, maxReceiveCount: settings.deadLetter.maxReceiveCount });
  }
  return attrs;
}

export class SqsAdmin implements BrokerAdmin {
  readonly queues: Queues;
  private readonly client: SQSClient;
  private readonly urls = new Map<string, string>();

  constructor(
    endpoint: SqsEndpoint,
    private readonly settings: SqsSettings,
    names: RunNames,
  ) {
    this.queues = queuesOf(settings, names);
    this.client = sqsClient(endpoint, settings, { admin: true });
  }

  async url(queue: string): Promise<string> {
    let url = this.urls.get(queue);
    if (!url) {
      url = (await this.client.send(new GetQueueUrlCommand({ QueueName: queue }))).QueueUrl!;
      this.urls.set(queue, url);
    }
    return url;
  }

  async createDestinations(): Promise<void> {
    const { settings: s, queues: q } = this;
    let dlqArn: string | undefined;
    if (q.deadLetter) {
      const dlqUrl = (await this.client.send(new CreateQueueCommand({ QueueName: q.deadLetter, Attributes: queueAttributes(s) }))).QueueUrl!;
      this.urls.set(q.deadLetter, dlqUrl);
      const attrs = await this.client.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }));
      dlqArn = attrs.Attributes?.QueueArn;
      if (!dlqArn) throw new Error(`sqs: the dead-letter queue ${q.deadLetter} has no QueueArn`);
    }
    const url = (await this.client.send(new CreateQueueCommand({ QueueName: q.main, Attributes: queueAttributes(s, dlqArn) }))).QueueUrl!;
    this.urls.set(q.main, url);
  }

  async deleteDestinations(): Promise<void> {
    for (const queue of [this.queues.main, this.queues.deadLetter]) {
      if (!queue) continue;
      try {
        await this.client.send(new DeleteQueueCommand({ QueueUrl: await this.url(queue) }));
      } catch {
        /* already gone */
      }
      this.urls.delete(queue);
    }
  }

  /** Message counts per queue as the broker reports them (approximate, as in SQS). */
  async describeConsumerGroup(): Promise<Record<string, unknown>> {
    const out: Record<string, unknown>[] = [];
    for (const queue of [this.queues.main, this.queues.deadLetter]) {
      if (!queue) continue;
      try {
        const r = await this.client.send(new GetQueueAttributesCommand({ QueueUrl: await this.url(queue), AttributeNames: ['All'] }));
        const a = r.Attributes ?? {};
        out.push({
          queue,
          visible: Number(a.ApproximateNumberOfMessages ?? 0),
          inFlight: Number(a.ApproximateNumberOfMessagesNotVisible ?? 0),
          delayed: Number(a.ApproximateNumberOfMessagesDelayed ?? 0),
        });
      } catch (err) {
        out.push({ queue, error: (err as Error).message });
      }
    }
    return { queueType: this.settings.queueType, queues: out };
  }

  /** Visible message counts (tests and evidence). */
  async depth(queue: 'main' | 'deadLetter'): Promise<{ visible: number; inFlight: number }> {
    const name = this.queues[queue];
    if (!name) throw new Error(`sqs: this run has no ${queue} queue`);
    const r = await this.client.send(
      new GetQueueAttributesCommand({ QueueUrl: await this.url(name), AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
    );
    return { visible: Number(r.Attributes?.ApproximateNumberOfMessages ?? 0), inFlight: Number(r.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0) };
  }

  /**
   * Messages the run's queues still hold: visible, in flight (received, not deleted: they come
   * back when their visibility timeout ends) and delayed, main and dead-letter queue. SQS
   * cannot tell message groups apart here, so there are no lanes; its counts are approximate
   * (ElasticMQ's are exact), which only matters when it says 0 while a message is still held.
   */
  async remaining(): Promise<RemainingReport> {
    const detail: Record<string, Record<string, number>> = {};
    let total = 0;
    for (const name of [this.queues.main, this.queues.deadLetter].filter((q): q is string => !!q)) {
      const r = await this.client.send(
        new GetQueueAttributesCommand({
          QueueUrl: await this.url(name),
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
        }),
      );
      const a = r.Attributes ?? {};
      const q = {
        visible: Number(a.ApproximateNumberOfMessages ?? 0),
        notVisible: Number(a.ApproximateNumberOfMessagesNotVisible ?? 0),
        delayed: Number(a.ApproximateNumberOfMessagesDelayed ?? 0),
      };
      detail[name] = q;
      total += q.visible + q.notVisible + q.delayed;
    }
    const q = this.queues.deadLetter ? detail[this.queues.deadLetter] : undefined;
    const parked = q ? q.visible + q.notVisible + q.delayed : 0;
    return { known: true, total, deliverable: total - parked, detail: { queues: detail } };
  }

  /**
   * Moves every message of the dead-letter queue back to the main queue: receive a batch from
   * the DLQ, send it to the main queue (same body and MessageGroupId, a new deduplication id,
   * `convoy-redriven` incremented), then delete it from the DLQ. A crash between send and
   * delete duplicates, never loses. FIFO groups keep their order within each batch and across
   * batches (a group's next DLQ message is received only after the previous was deleted).
   * The redriven message is an old change that now lands behind newer ones (a regression).
   */
  async redriveDeadLetters(): Promise<number> {
    const dlq = this.queues.deadLetter;
    if (!dlq) throw new Error('redrive: this run has no dead-letter queue (set broker.deadLetter.enabled)');
    const dlqUrl = await this.url(dlq);
    const mainUrl = await this.url(this.queues.main);
    const fifo = this.settings.queueType === 'fifo';
    let moved = 0;
    let empties = 0;
    const started = Date.now();
    const stamp = started.toString(36);
    while (empties < 2) {
      const r = await this.client.send(
        new ReceiveMessageCommand({
          QueueUrl: dlqUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
          VisibilityTimeout: 60,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      const received: Message[] = r.Messages ?? [];
      if (received.length === 0) {
        empties++;
        continue;
      }
      empties = 0;
      // Dead-lettered after the redrive began (maybe a redriven message failing again): leave
      // it for the next redrive, and stop when a batch holds nothing older.
      const fresh = received.filter((m) => Number(m.Attributes?.SentTimestamp ?? 0) >= started);
      const batch = received.filter((m) => !fresh.includes(m));
      if (fresh.length) {
        await this.client.send(
          new ChangeMessageVisibilityBatchCommand({ QueueUrl: dlqUrl, Entries: fresh.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle!, VisibilityTimeout: 0 })) }),
        );
      }
      if (batch.length === 0) break;
      const entries: SendMessageBatchRequestEntry[] = batch.map((m, i) => {
        const count = Number(m.MessageAttributes?.[REDRIVE_ATTRIBUTE]?.StringValue ?? 0) + 1;
        const entry: SendMessageBatchRequestEntry = {
          Id: String(i),
          MessageBody: m.Body ?? '',
          MessageAttributes: { ...(m.MessageAttributes ?? {}), [REDRIVE_ATTRIBUTE]: { DataType: 'Number', StringValue: String(count) } },
        };
        if (fifo) {
          entry.MessageGroupId = m.Attributes?.MessageGroupId;
          entry.MessageDeduplicationId = `redrive-${stamp}-${m.MessageId}`.slice(0, 128);
        }
        return entry;
      });
      const sent = await this.client.send(new SendMessageBatchCommand({ QueueUrl: mainUrl, Entries: entries }));
      if (sent.Failed?.length) {
        throw new Error(`redrive: ${sent.Failed.length} message(s) could not be sent back (${sent.Failed.map((f) => f.Message ?? f.Code).join('; ')}); they stay in the DLQ`);
      }
      await this.client.send(new DeleteMessageBatchCommand({ QueueUrl: dlqUrl, Entries: batch.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }));
      moved += batch.length;
    }
    return moved;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
