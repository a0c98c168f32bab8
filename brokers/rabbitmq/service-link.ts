/**
 * A consumer under test on RabbitMQ (docs/consumer-under-test.md): the AMQP URL (through the
 * Toxiproxy clients link where convoy started the broker, so network faults reach the service)
 * and the run's queues to consume, each a lane named as acks name it (the queue). convoy's
 * fields travel as AMQP message headers.
 */
import type { BrokerSettings, Endpoint, RunNames, ServiceLink } from '../../harness/broker/contract.ts';
import { InputError } from '../../harness/errors.ts';
import { asEndpoint } from './connection.ts';
import { destinations } from './names.ts';
import { resolveSettings } from './settings.ts';

export const rabbitServiceLink: ServiceLink = {
  variables: {
    RABBITMQ_URL: 'the AMQP URL (through Toxiproxy when convoy started the broker)',
    RABBITMQ_QUEUES: "the run's queues to consume, comma-separated (one, or the hash lanes); the lane is the queue",
  },
  env(endpoint: Endpoint, settings: BrokerSettings, names: RunNames): Record<string, string> {
    const e = asEndpoint(endpoint);
    if (e.tls) throw new InputError('consumers.service: TLS connections are not handed to a consumer under test yet');
    return { RABBITMQ_URL: e.url, RABBITMQ_QUEUES: destinations(resolveSettings(settings), names, e.queue).queues.join(',') };
  },
  lane: (reported: string) => reported,
};
