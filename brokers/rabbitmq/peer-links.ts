/**
 * Proxied peer links for a local cluster (`peerLinks: proxied`): the Erlang distribution between
 * the nodes goes through one Toxiproxy proxy per directed pair, so the `isolate` fault can cut a
 * node off from the others while clients still reach it.
 *
 * A node dials a peer by its node name's host part: it asks epmd on that host for the peer's
 * distribution port, then connects to host:port. So:
 *   - each node is named `convoy-<amqpPort>@rabbit-node-<j>` (a host name of convoy's), and
 *     resolves those names from an Erlang host table of its own (ERL_INETRC), in which node i
 *     finds node j at 127.<R>.<i>.<j> (harness/net/peer-address.ts) and itself at 127.0.0.1;
 *   - epmd listens on every local address, so 127.<R>.<i>.<j>:4369 reaches it and it answers
 *     node j's real distribution port P; node i then dials 127.<R>.<i>.<j>:P, where the proxy
 *     i->j listens, forwarding to 127.0.0.1:P, where node j listens (and only there:
 *     `distribution.listener.interface`, local.ts's nodeConfig).
 * The CLI tools (rabbitmqctl, rabbitmq-queues) get a table that has every node at 127.0.0.1
 * (ctl.ts): they are not part of the cluster and no fault acts on them.
 */
import type { NetworkLink } from '../../harness/broker/contract.ts';
import { pairHost } from '../../harness/net/peer-address.ts';

/** Node j's host name (the host part of its node name) when peer links are proxied. */
export const peerHostName = (id: number): string => `rabbit-node-${id}`;

/** One directed proxy: node `from` dials node `to`'s distribution port through it. */
export interface PeerProxy {
  name: string;
  from: number;
  to: number;
  /** host:port Toxiproxy listens on (what `from` dials). */
  listen: string;
  /** host:port of `to`'s own distribution listener. */
  upstream: string;
}

/** Every directed pair of nodes, given each node's distribution port (index i: node i+1). */
export function peerProxies(distPorts: number[], net: number): PeerProxy[] {
  const out: PeerProxy[] = [];
  distPorts.forEach((_, f) =>
    distPorts.forEach((port, t) => {
      if (f === t) return;
      out.push({ name: `rabbitmq-peer-${f + 1}-${t + 1}`, from: f + 1, to: t + 1, listen: `${pairHost(net, f + 1, t + 1)}:${port}`, upstream: `127.0.0.1:${port}` });
    }),
  );
  return out;
}

/**
 * An Erlang host table (inetrc): the given names at the given addresses, looked up first. One
 * entry per address: a second `host` entry for an address replaces the first one's names.
 */
function inetrc(entries: [address: string, name: string][]): string {
  const byAddress = new Map<string, string[]>();
  for (const [ip, name] of entries) byAddress.set(ip, [...(byAddress.get(ip) ?? []), name]);
  const tuple = (ip: string) => `{${ip.split('.').join(',')}}`;
  const hosts = [...byAddress].map(([ip, names]) => `{host, ${tuple(ip)}, [${names.map((n) => `"${n}"`).join(', ')}]}.`);
  return [...hosts, '{lookup, [file, native]}.', ''].join('\n');
}

/** Node `self`'s host table: each peer at the proxy self->peer, itself at 127.0.0.1. */
export function nodeInetrc(self: number, count: number, net: number): string {
  return inetrc(Array.from({ length: count }, (_, i) => [i + 1 === self ? '127.0.0.1' : pairHost(net, self, i + 1), peerHostName(i + 1)]));
}

/** The CLI tools' host table: every node directly. */
export function cliInetrc(count: number): string {
  return inetrc(Array.from({ length: count }, (_, i) => ['127.0.0.1', peerHostName(i + 1)]));
}

/** The peer proxies as deployment links (named `node-1>node-2:distribution`), for the isolate fault. */
export function peerLinks(proxies: PeerProxy[], toxiproxyUrl: string): NetworkLink[] {
  return proxies.map((p) => ({
    name: `node-${p.from}>node-${p.to}:distribution`,
    proxies: [p.name],
    toxiproxyUrl,
    peer: { from: `node-${p.from}`, to: `node-${p.to}`, traffic: 'distribution' },
  }));
}
