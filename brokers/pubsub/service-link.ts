/**
 * A consumer under test on Pub/Sub (docs/consumer-under-test.md): the emulator's host (through
 * the Toxiproxy clients link where convoy started pstest, so network faults reach the service;
 * absent for the real service, whose credentials the client finds itself), the project, and the
 * run's subscription. convoy's fields travel as message attributes. A lane is the ordering key
 * (messageOrdering on: the key) or the subscription, as acks name them.
 */
import type { BrokerSettings, Endpoint, RunNames, ServiceLink } from '../../harness/broker/contract.ts';
import { asEndpoint, namesOf } from './connection.ts';
import { resolveSettings } from './settings.ts';

export const pubsubServiceLink: ServiceLink = {
  variables: {
    PUBSUB_EMULATOR_HOST: "`host:port` of the emulator, which Google's client libraries read themselves (absent: the real service)",
    PUBSUB_PROJECT_ID: 'the project',
    GOOGLE_CLOUD_PROJECT: 'the same, under the name the client libraries read',
    PUBSUB_TOPIC: "the run's topic",
    PUBSUB_SUBSCRIPTION: "the run's subscription, to consume",
    PUBSUB_MESSAGE_ORDERING: '`true` when the subscription delivers in ordering-key order (the key, and the lane), else `false` (the lane is the subscription)',
  },
  env(endpoint: Endpoint, settings: BrokerSettings, names: RunNames): Record<string, string> {
    const e = asEndpoint(endpoint);
    const s = resolveSettings(settings);
    const n = namesOf(s, names);
    return {
      ...(e.emulatorHost ? { PUBSUB_EMULATOR_HOST: e.emulatorHost } : {}),
      PUBSUB_PROJECT_ID: e.projectId,
      GOOGLE_CLOUD_PROJECT: e.projectId,
      PUBSUB_TOPIC: n.topic,
      PUBSUB_SUBSCRIPTION: n.subscription,
      PUBSUB_MESSAGE_ORDERING: String(s.messageOrdering),
    };
  },
  lane: (reported: string) => reported,
};
