/**
 * Creates and deletes the run's topic and subscription (see connection.ts for names), through
 * pstest's own port (adminHost) so network faults on the `clients` link do not hit them, and
 * the optional capabilities faults look for: redriveDeadLetters and describeConsumerGroup.
 *
 *   topic         <prefix>-topic
 *   subscription  <prefix>-sub: enableMessageOrdering, ackDeadlineSeconds,
 *                 deadLetterPolicy {deadLetterTopic, maxDeliveryAttempts}
 *   dead letters  <prefix>-dead-letter (topic) and <prefix>-dead-letter-sub, which keeps them:
 *                 a message published to a topic without a subscription is gone
 *
 * On the real service dead-lettering also needs IAM: the project's Pub/Sub service agent must
 * be allowed to publish to the dead-letter topic and to subscribe to the subscription.
 */
import { v1, type CreateSubscriptionOptions, type PubSub } from '@google-cloud/pubsub';
import type { BrokerAdmin, RemainingReport, RunNames } from '../../harness/broker/contract.ts';
import { namesOf, pubsubClient, type Names, type PubsubEndpoint } from './connection.ts';
import type { PubsubSettings } from './settings.ts';
import { OUTSTANDING_PER_KEY_LABEL } from './emulator/labels.ts';

/** Attribute counting how often convoy redrove a message. */
export const REDRIVE_ATTRIBUTE = 'convoy-redriven';

export function subscriptionOptions(settings: PubsubSettings, projectId: string, names: Names): CreateSubscriptionOptions {
  const opts: CreateSubscriptionOptions = {
    enableMessageOrdering: settings.messageOrdering,
    ackDeadlineSeconds: settings.ackDeadlineSeconds,
  };
  if (settings.outstandingPerKey > 0) opts.labels = { [OUTSTANDING_PER_KEY_LABEL]: String(settings.outstandingPerKey) };
  if (settings.retryPolicy) {
    const d = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });
    opts.retryPolicy = { minimumBackoff: d(settings.retryPolicy.minimumBackoffMs), maximumBackoff: d(settings.retryPolicy.maximumBackoffMs) };
  }
  if (names.deadLetterTopic) {
    opts.deadLetterPolicy = {
      deadLetterTopic: `projects/${projectId}/topics/${names.deadLetterTopic}`,
      maxDeliveryAttempts: settings.deadLetter.maxDeliveryAttempts,
    };
  }
  return opts;
}

export interface FailPublishOptions {
  /** Only Publish requests carrying this ordering key (default: the topic's next requests). */
  key?: string;
  count?: number;
  /** A gRPC status name; default FAILED_PRECONDITION (not retried by the client). */
  code?: string;
}

export class PubsubAdmin implements BrokerAdmin {
  readonly names: Names;
  private readonly client: PubSub;
  private subscriber?: v1.SubscriberClient;

  constructor(
    private readonly endpoint: PubsubEndpoint,
    private readonly settings: PubsubSettings,
    runNames: RunNames,
  ) {
    this.names = namesOf(settings, runNames);
    this.client = pubsubClient(endpoint, { admin: true });
  }

  private path(kind: 'topics' | 'subscriptions', id: string): string {
    return `projects/${this.endpoint.projectId}/${kind}/${id}`;
  }

  async createDestinations(): Promise<void> {
    const n = this.names;
    if (n.deadLetterTopic && n.deadLetterSubscription) {
      await this.client.createTopic(n.deadLetterTopic);
      await this.client.topic(n.deadLetterTopic).createSubscription(n.deadLetterSubscription, { ackDeadlineSeconds: 60 });
    }
    await this.client.createTopic(n.topic);
    await this.client.topic(n.topic).createSubscription(n.subscription, subscriptionOptions(this.settings, this.endpoint.projectId, n));
  }

  async deleteDestinations(): Promise<void> {
    const n = this.names;
    for (const sub of [n.subscription, n.deadLetterSubscription]) {
      if (sub) await this.client.subscription(sub).delete().catch(() => undefined);
    }
    for (const topic of [n.topic, n.deadLetterTopic]) {
      if (topic) await this.client.topic(topic).delete().catch(() => undefined);
    }
  }

  /** The subscription as the service reports it (ordering, deadline, dead-letter policy). */
  async describeConsumerGroup(): Promise<Record<string, unknown>> {
    const [meta] = await this.client.subscription(this.names.subscription).getMetadata();
    return {
      subscription: meta.name,
      enableMessageOrdering: meta.enableMessageOrdering,
      ackDeadlineSeconds: meta.ackDeadlineSeconds,
      deadLetterPolicy: meta.deadLetterPolicy ?? null,
    };
  }

  /**
   * Pub/Sub has no backlog count in its API (the service reports num_undelivered_messages
   * through Cloud Monitoring, pstest not at all), and a pull to count would lease messages and
   * raise their delivery attempts. So it says it cannot tell: undelivered messages are unseen.
   */
  async remaining(): Promise<RemainingReport> {
    return { known: false, total: null, reason: 'Pub/Sub (pstest) reports no backlog count for a subscription' };
  }

  private subscriberClient(): v1.SubscriberClient {
    // The PubSub object's options carry the emulator's servicePath, port and plaintext creds.
    this.subscriber ??= new v1.SubscriberClient(this.client.options as ConstructorParameters<typeof v1.SubscriberClient>[0]);
    return this.subscriber;
  }

  /** Messages waiting in the dead-letter subscription (pulled, then handed back at once). */
  async deadLetterCount(): Promise<number> {
    const sub = this.names.deadLetterSubscription;
    if (!sub) throw new Error('this run has no dead-letter topic (set broker.deadLetter.enabled)');
    const sc = this.subscriberClient();
    const [res] = await sc.pull({ subscription: this.path('subscriptions', sub), maxMessages: 1000 }, { timeout: 10_000 });
    const ackIds = (res.receivedMessages ?? []).map((m) => m.ackId!).filter(Boolean);
    if (ackIds.length) await sc.modifyAckDeadline({ subscription: this.path('subscriptions', sub), ackIds, ackDeadlineSeconds: 0 });
    return ackIds.length;
  }

  /**
   * Moves the dead-letter subscription's messages back to the run's topic: pull, publish each
   * (same data, attributes and ordering key, `convoy-redriven` incremented) and wait for the
   * publish, then acknowledge. A crash between publish and ack duplicates, never loses. A
   * message published after the redrive began (a redriven one failing again) is handed back
   * and ends the redrive. The redriven message is an old change landing behind newer ones.
   */
  async redriveDeadLetters(): Promise<number> {
    const sub = this.names.deadLetterSubscription;
    if (!sub) throw new Error('redrive: this run has no dead-letter topic (set broker.deadLetter.enabled)');
    const sc = this.subscriberClient();
    const subPath = this.path('subscriptions', sub);
    const topic = this.client.topic(this.names.topic, { messageOrdering: this.settings.messageOrdering });
    const started = Date.now();
    const seen = new Set<string>();
    let moved = 0;
    for (let empties = 0; empties < 2; ) {
      const [res] = await sc.pull({ subscription: subPath, maxMessages: 100 }, { timeout: 10_000 });
      const received = res.receivedMessages ?? [];
      if (received.length === 0) {
        empties++;
        continue;
      }
      empties = 0;
      // seconds is an int64: a Long (or a string) in the generated client, hence String().
      const publishedAt = (m: (typeof received)[number]) => Number(String(m.message?.publishTime?.seconds ?? 0)) * 1000 + Math.floor(Number(m.message?.publishTime?.nanos ?? 0) / 1e6);
      // Moved already in this redrive (a duplicate delivery; pstest also re-publishes every
      // dead letter to the dead-letter topic, see README): acknowledge, do not move again.
      const again = received.filter((m) => seen.has(m.message?.messageId ?? ''));
      const fresh = received.filter((m) => !again.includes(m) && publishedAt(m) >= started);
      const old = received.filter((m) => !again.includes(m) && !fresh.includes(m));
      if (again.length) await sc.acknowledge({ subscription: subPath, ackIds: again.map((m) => m.ackId!) });
      if (fresh.length) await sc.modifyAckDeadline({ subscription: subPath, ackIds: fresh.map((m) => m.ackId!), ackDeadlineSeconds: 0 });
      for (const m of old) {
        const attributes = { ...(m.message?.attributes ?? {}) };
        attributes[REDRIVE_ATTRIBUTE] = String(Number(attributes[REDRIVE_ATTRIBUTE] ?? 0) + 1);
        const orderingKey = this.settings.messageOrdering && m.message?.orderingKey ? m.message.orderingKey : undefined;
        await topic.publishMessage({ data: Buffer.from(m.message?.data ?? new Uint8Array()), attributes, ...(orderingKey ? { orderingKey } : {}) });
        await sc.acknowledge({ subscription: subPath, ackIds: [m.ackId!] });
        seen.add(m.message?.messageId ?? '');
        moved++;
      }
      if (old.length === 0) break;
    }
    await topic.flush().catch(() => undefined);
    return moved;
  }

  /**
   * pstest only (convoy's pstest-server control endpoint): the next matching Publish requests
   * of the run's topic fail with the given gRPC status.
   */
  async failNextPublish(opts: FailPublishOptions = {}): Promise<void> {
    if (!this.endpoint.controlUrl) throw new Error('failNextPublish needs convoy\'s pstest-server (local runtime)');
    const q = new URLSearchParams({ topic: this.path('topics', this.names.topic) });
    if (opts.key !== undefined) q.set('key', opts.key);
    if (opts.count !== undefined) q.set('count', String(opts.count));
    if (opts.code !== undefined) q.set('code', opts.code);
    const res = await fetch(`${this.endpoint.controlUrl}/fail-publish?${q}`, { method: 'POST' });
    if (!res.ok) throw new Error(`pstest-server fail-publish: HTTP ${res.status}: ${(await res.text()).trim()}`);
  }

  async close(): Promise<void> {
    await this.subscriber?.close().catch(() => undefined);
    await this.client.close().catch(() => undefined);
  }
}
