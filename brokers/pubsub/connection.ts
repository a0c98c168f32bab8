/**
 * Pub/Sub clients from an Endpoint (plain JSON, so worker processes can get it), and the
 * run's topic and subscription names.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { PubSub, type ClientConfig } from '@google-cloud/pubsub';
import type { Endpoint, RunNames } from '../../harness/broker/contract.ts';
import type { PubsubSettings } from './settings.ts';

export interface PubsubEndpoint {
  projectId: string;
  /**
   * host:port of an emulator for producers and consumers: the Toxiproxy `clients` link in
   * front of pstest when convoy started it. Absent: the real service (credentials from ADC).
   */
  emulatorHost?: string;
  /** host:port admin() uses: pstest's own port, so link faults do not hit set-up and redrive. */
  adminHost?: string;
  /** convoy's pstest-server control endpoint (http://127.0.0.1:<port>), local runtime only. */
  controlUrl?: string;
}

export function asEndpoint(e: Endpoint): PubsubEndpoint {
  if (typeof e.projectId !== 'string') throw new Error('pubsub endpoint has no projectId');
  return e as unknown as PubsubEndpoint;
}

/**
 * A client. With an emulator host it is the same as PUBSUB_EMULATOR_HOST=<host>: apiEndpoint
 * set, plaintext gRPC, no credentials. Without one it talks to the real service.
 */
export function pubsubClient(endpoint: PubsubEndpoint, opts: { admin?: boolean } = {}): PubSub {
  const host = opts.admin && endpoint.adminHost ? endpoint.adminHost : endpoint.emulatorHost;
  const config: ClientConfig = { projectId: endpoint.projectId };
  if (host) {
    config.apiEndpoint = host;
    config.emulatorMode = true;
    // Named, so google-auth does not probe for a GCE metadata server (a MetadataLookupWarning
    // and a delay on every new channel) to learn it.
    config.universeDomain = 'googleapis.com';
  }
  return new PubSub(config);
}

export interface Names {
  topic: string;
  subscription: string;
  deadLetterTopic?: string;
  /** A subscription on the dead-letter topic, so dead letters are kept (and can be redriven). */
  deadLetterSubscription?: string;
}

/** Topic and subscription ids: 3-255 characters, starting with a letter. */
export function namesOf(settings: PubsubSettings, names: RunNames): Names {
  const p = names.prefix.replace(/[^A-Za-z0-9._~+%-]/g, '-');
  return {
    topic: `${p}-topic`,
    subscription: `${p}-sub`,
    ...(settings.deadLetter.enabled ? { deadLetterTopic: `${p}-dead-letter`, deadLetterSubscription: `${p}-dead-letter-sub` } : {}),
  };
}

export function clientVersion(): string {
  try {
    const require = createRequire(import.meta.url);
    let dir = dirname(require.resolve('@google-cloud/pubsub'));
    while (!existsSync(join(dir, 'package.json')) && dir !== dirname(dir)) dir = dirname(dir);
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** Exponential backoff with a little jitter: 100 ms, 200 ms, ... up to maxMs. */
export function backoff(attempt: number, maxMs = 2_000): number {
  const base = Math.min(maxMs, 100 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.2));
}

export const errMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));
