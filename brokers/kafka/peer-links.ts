/**
 * Proxied peer links for a local cluster (`peerLinks: proxied`): every node reaches each peer's
 * INTERNAL (replication) and CONTROLLER (KRaft quorum) listener through a Toxiproxy proxy of
 * its own, one per directed pair and listener, so a fault can cut one node off from the others
 * while clients still reach it (the `isolate` fault).
 *
 * Why not one proxy per node: every peer dials the address a node ADVERTISES for INTERNAL, the
 * same for all, so cutting it would cut a node from everyone at once, itself and its followers
 * alike, and could not make a one-sided or minority/majority partition. Here:
 *   - a node advertises INTERNAL as a host name, `kafka-node-<j>.convoy:<port>`, and each JVM
 *     resolves those names from a hosts file of its own (`-Djdk.net.hosts.file`), in which
 *     node i finds node j at 127.<R>.<i>.<j>, the listen address of the proxy i->j;
 *   - `controller.quorum.voters` is per node anyway, so node i lists voter j at 127.<R>.<i>.<j>.
 * R is random per cluster (harness/net/peer-address.ts). The proxies die with Toxiproxy, which
 * the harness owns.
 */
import { hostname } from 'node:os';
import type { NetworkLink } from '../../harness/broker/contract.ts';
import { pairHost } from '../../harness/net/peer-address.ts';
import { nodeName } from './topology.ts';

export type PeerTraffic = 'replication' | 'controller';

/** One directed proxy: node `from` dials node `to`'s listener through it. */
export interface PeerProxy {
  name: string;
  from: number;
  to: number;
  traffic: PeerTraffic;
  /** host:port Toxiproxy listens on (what `from` dials). */
  listen: string;
  /** host:port of `to`'s own listener. */
  upstream: string;
}

export interface PeerPorts {
  id: number;
  internal: number;
  controller: number;
}

/** The host name a node advertises for INTERNAL when peer links are proxied. */
export function internalHostName(id: number): string {
  return `kafka-node-${id}.convoy`;
}

export function peerProxies(nodes: PeerPorts[], net: number, host = '127.0.0.1'): PeerProxy[] {
  const out: PeerProxy[] = [];
  for (const from of nodes) {
    for (const to of nodes) {
      if (from.id === to.id) continue;
      for (const traffic of ['replication', 'controller'] as const) {
        const port = traffic === 'replication' ? to.internal : to.controller;
        out.push({
          name: `kafka-peer-${from.id}-${to.id}-${traffic}`,
          from: from.id,
          to: to.id,
          traffic,
          listen: `${pairHost(net, from.id, to.id)}:${port}`,
          upstream: `${host}:${port}`,
        });
      }
    }
  }
  return out;
}

/** Node `self`'s hosts file: each peer's INTERNAL name at the proxy self->peer, its own at `host`. */
export function hostsFile(self: number, ids: number[], net: number, host = '127.0.0.1'): string {
  const lines = [`${host} localhost ${hostname()}`];
  for (const id of ids) lines.push(`${id === self ? host : pairHost(net, self, id)} ${internalHostName(id)}`);
  return lines.join('\n') + '\n';
}

/** Node `self`'s controller.quorum.voters: peers through its proxies, itself directly. */
export function votersFor(self: number, nodes: PeerPorts[], net: number, host = '127.0.0.1'): string {
  return nodes.map((n) => `${n.id}@${n.id === self ? host : pairHost(net, self, n.id)}:${n.controller}`).join(',');
}

/** The peer proxies as deployment links (named `node-1>node-2:replication`), for the isolate fault. */
export function peerLinks(proxies: PeerProxy[], toxiproxyUrl: string): NetworkLink[] {
  return proxies.map((p) => ({
    name: `${nodeName(p.from)}>${nodeName(p.to)}:${p.traffic}`,
    proxies: [p.name],
    toxiproxyUrl,
    peer: { from: nodeName(p.from), to: nodeName(p.to), traffic: p.traffic },
  }));
}
