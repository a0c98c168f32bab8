/**
 * The Publisher and Subscriber services of google.pubsub.v1 over gRPC, on the model
 * (model/broker.ts). What the unmodified @google-cloud/pubsub client and convoy's adapter call:
 * topics (create, get, delete, list), publish, subscriptions (create, get, delete, list),
 * Pull, StreamingPull, Acknowledge, ModifyAckDeadline. The rest answers UNIMPLEMENTED.
 */
import { status, type sendUnaryData, type ServerDuplexStream, type ServerUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { OUTSTANDING_PER_KEY_LABEL } from './labels.ts';
import { ApiError, checkName, type Broker } from './model/broker.ts';
import type { Holder, ReceivedMessage, SubscriptionPolicy } from './model/subscription.ts';


type Req = Record<string, unknown>;
interface Duration {
  seconds?: string | number;
  nanos?: number;
}

const durationMs = (d: Duration | null | undefined, fallbackMs: number): number => (d ? Number(d.seconds ?? 0) * 1000 + Math.round((d.nanos ?? 0) / 1e6) : fallbackMs);

function toStatus(err: unknown): { code: status; details: string } {
  if (err instanceof ApiError) return { code: err.code, details: err.message };
  return { code: status.INTERNAL, details: err instanceof Error ? err.message : String(err) };
}

/** A unary handler from a function that returns the response (or throws an ApiError). */
function unary(fn: (req: Req) => unknown) {
  return (call: ServerUnaryCall<Req, unknown>, callback: sendUnaryData<unknown>) => {
    try {
      callback(null, fn(call.request));
    } catch (err) {
      callback(toStatus(err));
    }
  };
}

function unimplemented(what: string) {
  return (_call: unknown, callback: sendUnaryData<unknown>) => callback({ code: status.UNIMPLEMENTED, details: `convoy's Pub/Sub emulator does not implement ${what}` });
}

function wire(m: ReceivedMessage): Req {
  return { ackId: m.ackId, message: m.message, deliveryAttempt: m.deliveryAttempt };
}

/** The subscription's policy from a CreateSubscription request; refuses what the emulator does not do. */
export function policyOf(sub: Req): SubscriptionPolicy {
  const ack = Number(sub.ackDeadlineSeconds ?? 0) || 10;
  // The service takes 10-600 s; below 10 is allowed here so fault scenarios can be short.
  if (ack < 1 || ack > 600) throw new ApiError(status.INVALID_ARGUMENT, `Invalid ack deadline ${ack}: 1 to 600 seconds`);
  if (sub.enableExactlyOnceDelivery) throw new ApiError(status.UNIMPLEMENTED, "convoy's Pub/Sub emulator does not implement exactly-once delivery");
  if (sub.filter) throw new ApiError(status.UNIMPLEMENTED, "convoy's Pub/Sub emulator does not implement filters");
  const push = sub.pushConfig as { pushEndpoint?: string } | null;
  if (push?.pushEndpoint || sub.bigqueryConfig || sub.cloudStorageConfig || sub.bigtableConfig) {
    throw new ApiError(status.UNIMPLEMENTED, "convoy's Pub/Sub emulator has pull subscriptions only");
  }
  const policy: SubscriptionPolicy = { ordering: Boolean(sub.enableMessageOrdering), ackDeadlineSeconds: ack, outstandingPerKey: 0 };
  const dl = sub.deadLetterPolicy as { deadLetterTopic?: string; maxDeliveryAttempts?: number } | null;
  if (dl?.deadLetterTopic) {
    const max = Number(dl.maxDeliveryAttempts ?? 0) || 5;
    if (max < 5 || max > 100) throw new ApiError(status.INVALID_ARGUMENT, `Invalid max_delivery_attempts ${max}: 5 to 100`);
    checkName(dl.deadLetterTopic, 'topic');
    policy.deadLetter = { topic: dl.deadLetterTopic, maxDeliveryAttempts: max };
  }
  const retry = sub.retryPolicy as { minimumBackoff?: Duration | null; maximumBackoff?: Duration | null } | null;
  if (retry) {
    const min = durationMs(retry.minimumBackoff, 10_000);
    const max = durationMs(retry.maximumBackoff, 600_000);
    if (min < 0 || max > 600_000 || min > max) throw new ApiError(status.INVALID_ARGUMENT, 'Invalid retry policy: 0 <= minimum_backoff <= maximum_backoff <= 600 s');
    policy.retry = { minimumBackoffMs: min, maximumBackoffMs: max };
  }
  const perKey = (sub.labels as Record<string, string> | undefined)?.[OUTSTANDING_PER_KEY_LABEL];
  if (perKey !== undefined) {
    if (!/^\d+$/.test(perKey)) throw new ApiError(status.INVALID_ARGUMENT, `label ${OUTSTANDING_PER_KEY_LABEL}: a whole number (0 = flow control only)`);
    policy.outstandingPerKey = Number(perKey);
  }
  return policy;
}

function project(req: Req): string {
  return String(req.project ?? '');
}

export function publisherService(broker: Broker): UntypedServiceImplementation {
  return {
    CreateTopic: unary((req) => broker.createTopic({ ...req, state: 'ACTIVE' }).resource),
    GetTopic: unary((req) => broker.topic(String(req.topic)).resource),
    ListTopics: unary((req) => ({ topics: [...broker.topics.values()].filter((t) => t.name.startsWith(`${project(req)}/`)).map((t) => t.resource), nextPageToken: '' })),
    ListTopicSubscriptions: unary((req) => ({ subscriptions: [...broker.topic(String(req.topic)).subscriptions], nextPageToken: '' })),
    DeleteTopic: unary((req) => {
      broker.deleteTopic(String(req.topic));
      return {};
    }),
    Publish: unary((req) => {
      const messages = (req.messages as Req[]).map((m) => ({
        data: Buffer.from((m.data as Uint8Array | undefined) ?? []),
        attributes: (m.attributes as Record<string, string> | undefined) ?? {},
        orderingKey: String(m.orderingKey ?? ''),
      }));
      return { messageIds: broker.publishRequest(String(req.topic), messages) };
    }),
    UpdateTopic: unimplemented('UpdateTopic'),
    ListTopicSnapshots: unimplemented('snapshots'),
    DetachSubscription: unimplemented('DetachSubscription'),
  };
}

export function subscriberService(broker: Broker): UntypedServiceImplementation {
  let streamSeq = 0;
  return {
    CreateSubscription: unary((req) => {
      const policy = policyOf(req);
      const resource: Req = {
        ...req,
        ackDeadlineSeconds: policy.ackDeadlineSeconds,
        messageRetentionDuration: req.messageRetentionDuration ?? { seconds: '604800', nanos: 0 },
        state: 'ACTIVE',
        ...(policy.deadLetter ? { deadLetterPolicy: { deadLetterTopic: policy.deadLetter.topic, maxDeliveryAttempts: policy.deadLetter.maxDeliveryAttempts } } : {}),
      };
      return broker.createSubscription(String(req.name), String(req.topic), resource, policy).resource;
    }),
    GetSubscription: unary((req) => broker.subscription(String(req.subscription)).resource),
    ListSubscriptions: unary((req) => ({ subscriptions: [...broker.subscriptions.values()].filter((s) => s.name.startsWith(`${project(req)}/`)).map((s) => s.resource), nextPageToken: '' })),
    DeleteSubscription: unary((req) => {
      broker.deleteSubscription(String(req.subscription));
      return {};
    }),
    Acknowledge: unary((req) => {
      broker.subscription(String(req.subscription)).state.acknowledge(req.ackIds as string[]);
      return {};
    }),
    ModifyAckDeadline: unary((req) => {
      const seconds = Number(req.ackDeadlineSeconds);
      if (seconds < 0 || seconds > 600) throw new ApiError(status.INVALID_ARGUMENT, `Invalid ack deadline ${seconds}: 0 to 600 seconds`);
      broker.subscription(String(req.subscription)).state.modifyAckDeadline(req.ackIds as string[], seconds);
      return {};
    }),
    /** What is ready now, at most maxMessages (leased for the subscription's deadline); nothing waits. */
    Pull: unary((req) => {
      const sub = broker.subscription(String(req.subscription));
      const received: ReceivedMessage[] = [];
      const holder: Holder = {
        id: `pull-${++streamSeq}`,
        maxMessages: Number(req.maxMessages) || 1,
        maxBytes: 0,
        deadlineSeconds: sub.state.policy.ackDeadlineSeconds,
        outstanding: 0,
        bytes: 0,
        closed: false,
        send: (messages) => received.push(...messages),
      };
      sub.state.addHolder(holder);
      sub.state.removeHolder(holder);
      return { receivedMessages: received.map(wire) };
    }),
    StreamingPull: (call: ServerDuplexStream<Req, Req>) => {
      let holder: Holder | undefined;
      let state: ReturnType<Broker['subscription']>['state'] | undefined;
      const done = () => {
        if (holder && state) state.removeHolder(holder);
      };
      call.on('data', (req: Req) => {
        try {
          const deadline = Number(req.streamAckDeadlineSeconds ?? 0);
          const first = !holder;
          if (!holder) {
            state = broker.subscription(String(req.subscription)).state;
            if (deadline < 1 || deadline > 600) throw new ApiError(status.INVALID_ARGUMENT, `Invalid stream_ack_deadline_seconds ${deadline}: 1 to 600`);
            const ordering = state.policy.ordering;
            holder = {
              id: `stream-${++streamSeq}`,
              maxMessages: Number(req.maxOutstandingMessages ?? 0),
              maxBytes: Number(req.maxOutstandingBytes ?? 0),
              deadlineSeconds: deadline,
              outstanding: 0,
              bytes: 0,
              closed: false,
              send: (messages: ReceivedMessage[]) => {
                if (call.cancelled || call.writableEnded) return; // leased anyway: the deadline brings them back
                call.write({ receivedMessages: messages.map(wire), subscriptionProperties: { exactlyOnceDeliveryEnabled: false, messageOrderingEnabled: ordering } });
              },
            };
          } else if (deadline > 0) {
            holder.deadlineSeconds = deadline;
          }
          const ackIds = (req.ackIds as string[] | undefined) ?? [];
          if (ackIds.length) state!.acknowledge(ackIds);
          const modIds = (req.modifyDeadlineAckIds as string[] | undefined) ?? [];
          const modSeconds = (req.modifyDeadlineSeconds as number[] | undefined) ?? [];
          if (modIds.length !== modSeconds.length) throw new ApiError(status.INVALID_ARGUMENT, 'modify_deadline_seconds and modify_deadline_ack_ids differ in length');
          modIds.forEach((id, i) => state!.modifyAckDeadline([id], Number(modSeconds[i])));
          if (first) state!.addHolder(holder);
        } catch (err) {
          done();
          call.emit('error', toStatus(err));
        }
      });
      call.on('end', () => {
        done();
        call.end();
      });
      call.on('cancelled', done);
      call.on('close', done);
    },
    UpdateSubscription: unimplemented('UpdateSubscription'),
    ModifyPushConfig: unimplemented('push subscriptions'),
    GetSnapshot: unimplemented('snapshots'),
    ListSnapshots: unimplemented('snapshots'),
    CreateSnapshot: unimplemented('snapshots'),
    UpdateSnapshot: unimplemented('snapshots'),
    DeleteSnapshot: unimplemented('snapshots'),
    Seek: unimplemented('Seek'),
  };
}
