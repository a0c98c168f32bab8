/**
 * SQS clients from an Endpoint (plain JSON, so worker processes can get it), and the run's
 * queue names.
 */
import { createHash } from 'node:crypto';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import type { Endpoint, RunNames } from '../../harness/broker/contract.ts';
import type { SqsSettings } from './settings.ts';

export interface SqsEndpoint {
  /** What producers and consumers use: the Toxiproxy `clients` link when convoy started the broker. Absent: the region's AWS endpoint. */
  url?: string;
  /** What admin() uses: the emulator's own port, so link faults do not hit queue set-up and redrive. */
  adminUrl?: string;
  region: string;
  /**
   * Keys for the request signature. ElasticMQ accepts any (convoy uses dummy ones); for a real
   * SQS they are present only when passed explicitly (else the SDK's default chain: env vars,
   * profile, instance role). Results redact them.
   */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

export function asEndpoint(e: Endpoint): SqsEndpoint {
  if (typeof e.region !== 'string') throw new Error('sqs endpoint has no region');
  return e as unknown as SqsEndpoint;
}

export const DUMMY_CREDENTIALS = { accessKeyId: 'convoy', secretAccessKey: 'convoy' } as const;

/** One SDK client. `admin` picks the control-plane URL; long polls get a socket timeout above their wait. */
export function sqsClient(endpoint: SqsEndpoint, settings: SqsSettings, opts: { admin?: boolean } = {}): SQSClient {
  const url = opts.admin && endpoint.adminUrl ? endpoint.adminUrl : endpoint.url;
  const c = settings.client;
  const agentOpts = { keepAlive: true, maxSockets: c.maxSockets };
  const config: SQSClientConfig = {
    region: endpoint.region,
    maxAttempts: c.maxAttempts,
    useQueueUrlAsEndpoint: false,
    requestHandler: {
      connectionTimeout: c.connectTimeoutMs,
      requestTimeout: c.requestTimeoutMs + settings.receive.waitTimeSeconds * 1000,
      httpAgent: new HttpAgent(agentOpts),
      httpsAgent: new HttpsAgent(agentOpts),
    },
  };
  if (url) config.endpoint = url;
  if (endpoint.credentials) config.credentials = endpoint.credentials;
  return new SQSClient(config);
}

/** SQS queue names: 1-80 characters of [A-Za-z0-9_-], FIFO ones ending in `.fifo`. */
export function queueName(prefix: string, role: 'main' | 'dlq', fifo: boolean): string {
  const suffix = `-${role}${fifo ? '.fifo' : ''}`;
  let base = prefix.replace(/[^A-Za-z0-9_-]/g, '-');
  if (base.length + suffix.length > 80) {
    const hash = createHash('sha256').update(prefix).digest('hex').slice(0, 8);
    base = `${base.slice(0, 80 - suffix.length - 9)}-${hash}`;
  }
  return base + suffix;
}

export interface Queues {
  main: string;
  deadLetter?: string;
}

export function queuesOf(settings: SqsSettings, names: RunNames): Queues {
  const fifo = settings.queueType === 'fifo';
  return {
    main: queueName(names.prefix, 'main', fifo),
    ...(settings.deadLetter.enabled ? { deadLetter: queueName(names.prefix, 'dlq', fifo) } : {}),
  };
}

/** Exponential backoff with a little jitter: 100 ms, 200 ms, ... up to maxMs. */
export function backoff(attempt: number, maxMs = 2_000): number {
  const base = Math.min(maxMs, 100 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.2));
}

export const errMessage = (e: unknown): string => {
  if (e instanceof Error) return e.name && e.name !== 'Error' && !e.message.includes(e.name) ? `${e.name}: ${e.message}` : e.message;
  return String(e);
};
