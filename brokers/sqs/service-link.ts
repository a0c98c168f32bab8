/**
 * A consumer under test on SQS (docs/consumer-under-test.md): the endpoint (through the Toxiproxy
 * clients link where convoy started ElasticMQ, so network faults reach the service), the region,
 * the keys ElasticMQ accepts (or the user's own, when given for an external SQS) and the run's
 * queue. convoy's fields travel as String message attributes; the body is the payload's text.
 * A lane is the message group (FIFO) or the queue, as acks name them.
 */
import type { BrokerSettings, Endpoint, RunNames, ServiceLink } from '../../harness/broker/contract.ts';
import { asEndpoint, queuesOf } from './connection.ts';
import { resolveSettings } from './settings.ts';

export const sqsServiceLink: ServiceLink = {
  variables: {
    SQS_ENDPOINT_URL: "the SQS endpoint (absent: the region's AWS one)",
    AWS_ENDPOINT_URL_SQS: 'the same, under the name the AWS SDKs read themselves',
    AWS_REGION: 'the region',
    AWS_DEFAULT_REGION: 'the same, for SDKs that read this one',
    AWS_ACCESS_KEY_ID: "keys the emulator accepts (an external SQS: only when given to convoy; else the SDK's own chain)",
    AWS_SECRET_ACCESS_KEY: 'the same',
    AWS_SESSION_TOKEN: 'the same, when there is one',
    SQS_QUEUE_NAME: "the run's queue (GetQueueUrl gives its URL)",
    SQS_QUEUE_FIFO: '`true` for a FIFO queue (the lane is the MessageGroupId), else `false` (the lane is the queue)',
  },
  env(endpoint: Endpoint, settings: BrokerSettings, names: RunNames): Record<string, string> {
    const e = asEndpoint(endpoint);
    const s = resolveSettings(settings);
    const c = e.credentials;
    return {
      ...(e.url ? { SQS_ENDPOINT_URL: e.url, AWS_ENDPOINT_URL_SQS: e.url } : {}),
      AWS_REGION: e.region,
      AWS_DEFAULT_REGION: e.region,
      ...(c ? { AWS_ACCESS_KEY_ID: c.accessKeyId, AWS_SECRET_ACCESS_KEY: c.secretAccessKey, ...(c.sessionToken ? { AWS_SESSION_TOKEN: c.sessionToken } : {}) } : {}),
      SQS_QUEUE_NAME: queuesOf(s, names).main,
      SQS_QUEUE_FIFO: String(s.queueType === 'fifo'),
    };
  },
  lane: (reported: string) => reported,
};
