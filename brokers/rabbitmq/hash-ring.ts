/**
 * The consistent hash exchange's ring, read from the local node: which queue owns each bucket.
 * A routing key hashes to a bucket, so this map is what sends a key to its queue. The plugin
 * keeps it in a Mnesia table and rebuilds it from the bindings when the node boots, in the
 * order it recovers them, which need not be the order they were made: after a restart the same
 * bindings can give another map, and keys another queue (RabbitMQ 3.10.8 does so on one node).
 * The AMQP API cannot see the ring, so it is read with `rabbitmqctl eval`.
 */
import type { RabbitEndpoint } from './connection.ts';
import { cliError, runCli } from './ctl.ts';

export interface HashRing {
  exchange: string;
  /** Bucket number to queue name, in bucket order. */
  buckets?: Record<string, string>;
  error?: string;
}

/** The Erlang expression: the ring as a sorted list of {Bucket, QueueName}, or `none`. */
export function ringExpression(exchange: string, vhost = '/'): string {
  for (const name of [exchange, vhost]) if (!/^[\w./:-]+$/.test(name)) throw new Error(`not a name convoy makes: ${JSON.stringify(name)}`);
  return [
    `case mnesia:dirty_read(rabbit_exchange_type_consistent_hash_ring_state, rabbit_misc:r(<<"${vhost}">>, exchange, <<"${exchange}">>)) of`,
    '  [{chx_hash_ring, _, Map, _}] -> lists:sort(maps:to_list(maps:map(fun(_, R) -> element(4, R) end, Map)));',
    '  [] -> none',
    'end.',
  ].join(' ');
}

/** Parses what `rabbitmqctl eval` printed for ringExpression. */
export function parseRing(exchange: string, stdout: string): HashRing {
  const text = stdout.trim();
  if (text === 'none') return { exchange, error: 'the node has no ring for this exchange' };
  const buckets: Record<string, string> = {};
  for (const m of text.matchAll(/\{(\d+),\s*<<"([^"]*)">>\}/g)) buckets[m[1]!] = m[2]!;
  if (Object.keys(buckets).length === 0) return { exchange, error: `rabbitmqctl eval said: ${text.slice(0, 200)}` };
  return { exchange, buckets };
}

/** The ring now; an error (the node down, no rabbitmqctl) is part of the answer, not thrown. */
export async function readHashRing(endpoint: RabbitEndpoint, exchange: string, timeoutMs = 10_000): Promise<HashRing & { node?: string }> {
  if (!endpoint.node || !endpoint.rabbitmqctl) return { exchange, error: 'no local node to reach with rabbitmqctl' };
  let error = '';
  // A cluster: the first node that answers (each node keeps the ring).
  for (const node of endpoint.nodes ?? [endpoint.node]) {
    try {
      const stdout = await runCli(endpoint, 'rabbitmqctl', node, ['eval', ringExpression(exchange)], timeoutMs);
      return { ...parseRing(exchange, stdout), ...(endpoint.nodes ? { node } : {}) };
    } catch (err) {
      error = cliError(err);
    }
  }
  return { exchange, error };
}

/** Queues whose buckets changed between two readings (empty when either could not be read). */
export function movedBuckets(before: HashRing, after: HashRing): string[] {
  if (!before.buckets || !after.buckets) return [];
  return Object.keys(before.buckets).filter((b) => before.buckets![b] !== after.buckets![b]);
}
