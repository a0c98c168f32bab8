/**
 * Topics and subscriptions in memory: publish fans a message out to the topic's subscriptions;
 * each subscription keeps its own state (subscription.ts). Errors carry the gRPC status the
 * service answers with.
 */
import { status } from '@grpc/grpc-js';
import { SubscriptionState, type StoredMessage, type SubscriptionPolicy } from './subscription.ts';

export class ApiError extends Error {
  constructor(
    readonly code: status,
    message: string,
  ) {
    super(message);
  }
}

export interface TopicRecord {
  name: string;
  /** The Topic as created (returned by GetTopic). */
  resource: Record<string, unknown>;
  subscriptions: Set<string>;
}

export interface SubscriptionRecord {
  name: string;
  topic: string;
  resource: Record<string, unknown>;
  state: SubscriptionState;
}

/** An injected publish failure (the control endpoint's /fail-publish). */
interface PublishFailure {
  key?: string;
  remaining: number;
  code: status;
}

const TOPIC = /^projects\/[^/]+\/topics\/[^/]+$/;
const SUBSCRIPTION = /^projects\/[^/]+\/subscriptions\/[^/]+$/;

export function checkName(name: string, kind: 'topic' | 'subscription'): void {
  if (!(kind === 'topic' ? TOPIC : SUBSCRIPTION).test(name)) throw new ApiError(status.INVALID_ARGUMENT, `Invalid [${kind}s] name: (name=${name})`);
}

export class Broker {
  readonly topics = new Map<string, TopicRecord>();
  readonly subscriptions = new Map<string, SubscriptionRecord>();
  private readonly failures = new Map<string, PublishFailure[]>();
  private messageSeq = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(tickMs = 20) {
    // Deadlines and retry backoffs come due on this tick.
    this.timer = setInterval(() => {
      for (const s of this.subscriptions.values()) s.state.expire();
    }, tickMs);
    this.timer.unref();
  }

  topic(name: string): TopicRecord {
    const t = this.topics.get(name);
    if (!t) throw new ApiError(status.NOT_FOUND, `Topic not found (resource=${name})`);
    return t;
  }

  subscription(name: string): SubscriptionRecord {
    const s = this.subscriptions.get(name);
    if (!s) throw new ApiError(status.NOT_FOUND, `Subscription does not exist (resource=${name})`);
    return s;
  }

  createTopic(resource: Record<string, unknown>): TopicRecord {
    const name = String(resource.name ?? '');
    checkName(name, 'topic');
    if (this.topics.has(name)) throw new ApiError(status.ALREADY_EXISTS, `Topic already exists (resource=${name})`);
    const t: TopicRecord = { name, resource, subscriptions: new Set() };
    this.topics.set(name, t);
    return t;
  }

  /** Its subscriptions stay, detached from any topic, as on the service. */
  deleteTopic(name: string): void {
    this.topic(name);
    this.topics.delete(name);
    this.failures.delete(name);
  }

  createSubscription(name: string, topic: string, resource: Record<string, unknown>, policy: SubscriptionPolicy): SubscriptionRecord {
    checkName(name, 'subscription');
    const t = this.topic(topic);
    if (this.subscriptions.has(name)) throw new ApiError(status.ALREADY_EXISTS, `Subscription already exists (resource=${name})`);
    if (policy.deadLetter) this.topic(policy.deadLetter.topic);
    const state = new SubscriptionState(name, policy, (dlTopic, message, attempts) => this.deadLetter(dlTopic, name, message, attempts));
    const s: SubscriptionRecord = { name, topic, resource, state };
    this.subscriptions.set(name, s);
    t.subscriptions.add(name);
    return s;
  }

  deleteSubscription(name: string): SubscriptionRecord {
    const s = this.subscription(name);
    this.subscriptions.delete(name);
    this.topics.get(s.topic)?.subscriptions.delete(name);
    s.state.close();
    return s;
  }

  failNextPublish(topic: string, failure: PublishFailure): void {
    const list = this.failures.get(topic) ?? [];
    list.push(failure);
    this.failures.set(topic, list);
  }

  /** A Publish request from a client: an injected failure first, then publish(). */
  publishRequest(topicName: string, messages: Omit<StoredMessage, 'messageId' | 'publishTime'>[]): string[] {
    this.topic(topicName);
    const failure = this.failures.get(topicName)?.find((f) => f.key === undefined || messages.some((m) => m.orderingKey === f.key));
    if (failure) {
      if (--failure.remaining <= 0) this.failures.set(topicName, this.failures.get(topicName)!.filter((f) => f !== failure));
      throw new ApiError(failure.code, `convoy: injected publish failure (${status[failure.code]})`);
    }
    return this.publish(topicName, messages);
  }

  /** Stores the messages on every subscription of the topic; their message ids, in order. */
  publish(topicName: string, messages: Omit<StoredMessage, 'messageId' | 'publishTime'>[]): string[] {
    const topic = this.topic(topicName);
    for (const m of messages) {
      if (m.data.length === 0 && Object.keys(m.attributes).length === 0) throw new ApiError(status.INVALID_ARGUMENT, 'A message must have data or attributes');
    }
    const now = Date.now();
    const publishTime = { seconds: String(Math.floor(now / 1000)), nanos: (now % 1000) * 1e6 };
    const stored = messages.map((m) => ({ ...m, messageId: String(++this.messageSeq), publishTime }));
    for (const sub of topic.subscriptions) {
      this.subscriptions.get(sub)?.state.add(stored);
    }
    return stored.map((m) => m.messageId);
  }

  /** What the service adds to a message it forwards to a dead-letter topic. */
  private deadLetter(topic: string, subscription: string, message: StoredMessage, attempts: number): void {
    const attributes = {
      ...message.attributes,
      CloudPubSubDeadLetterSourceDeliveryCount: String(attempts),
      CloudPubSubDeadLetterSourceSubscription: subscription.split('/').pop()!,
      CloudPubSubDeadLetterSourceSubscriptionProject: subscription.split('/')[1]!,
    };
    try {
      this.publish(topic, [{ data: message.data, attributes, orderingKey: message.orderingKey }]);
    } catch {
      // The dead-letter topic was deleted: the service drops the message too.
    }
  }

  close(): void {
    clearInterval(this.timer);
    for (const s of this.subscriptions.values()) s.state.close();
  }
}
