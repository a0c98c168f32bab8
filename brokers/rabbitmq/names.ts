/**
 * The run's RabbitMQ objects, named from RunNames.prefix (`convoy-<runId>`), so leftovers of
 * earlier runs are never read. Admin, producer and consumer all derive names from here.
 *
 *   competing / single-active      hash-lanes
 *   publish: default exchange ''    publish: <prefix>.hash (x-consistent-hash), routing key = message key
 *   queue:   <prefix>.main          queues:  <prefix>.lane-00 .. lane-NN (each single active consumer)
 *
 *   dead letters: main queue(s) --x-dead-letter-exchange--> <prefix>.retry-x (fanout) -> <prefix>.retry
 *                 (TTL, then dead-lettered back into the publish exchange with the original
 *                 routing key), or, without a retry queue, <prefix>.dlx (fanout) -> <prefix>.dlq.
 *                 Parked messages (maxDeliveries reached) are published to <prefix>.dlx.
 */
import type { RunNames } from '../../harness/broker/contract.ts';
import type { RabbitSettings } from './settings.ts';

export interface Destinations {
  /** Exchange producers publish to ('' is the default exchange). */
  publishExchange: string;
  /** The consistent hash exchange (hash-lanes only). */
  hashExchange?: string;
  /** The queues consumers read: one per lane. */
  queues: string[];
  deadLetterExchange?: string;
  deadLetterQueue?: string;
  retryExchange?: string;
  retryQueue?: string;
  /** Routing key for a message with this key. */
  routingKey(key: string): string;
}

/** Header carrying the message key (the routing key is the queue name on the default exchange). */
export const KEY_HEADER = 'convoy-key';
/** Header counting how often an admin redrive moved the message back. */
export const REDRIVE_HEADER = 'convoy-redriven';

/** `queue`: a queue made beforehand (queue.name), published to through the default exchange; nothing else. */
export function destinations(settings: RabbitSettings, names: RunNames, queue?: string): Destinations {
  if (queue) return { publishExchange: '', queues: [queue], routingKey: () => queue };
  const p = names.prefix;
  const dl = settings.deadLetter.enabled;
  const retry = dl && settings.deadLetter.retryQueue !== undefined;
  const common = {
    deadLetterExchange: dl ? `${p}.dlx` : undefined,
    deadLetterQueue: dl ? `${p}.dlq` : undefined,
    retryExchange: retry ? `${p}.retry-x` : undefined,
    retryQueue: retry ? `${p}.retry` : undefined,
  };
  if (settings.topology === 'hash-lanes') {
    const width = String(settings.lanes - 1).length;
    const queues = Array.from({ length: settings.lanes }, (_, i) => `${p}.lane-${String(i).padStart(Math.max(2, width), '0')}`);
    const hashExchange = `${p}.hash`;
    return { publishExchange: hashExchange, hashExchange, queues, ...common, routingKey: (key) => key };
  }
  const main = `${p}.main`;
  return { publishExchange: '', queues: [main], ...common, routingKey: () => main };
}
