/**
 * Addresses for proxied peer links between the nodes of a local cluster: node i reaches node j
 * through a Toxiproxy proxy listening on 127.<R>.<i>.<j>, so every directed pair has an address
 * of its own and a fault can cut one node off from the others alone. R is random per cluster.
 * Every 127/8 address is local on Linux without any interface change, so nothing outside the
 * run's Toxiproxy process is created: no address, qdisc or firewall rule that could outlive it.
 */
import { randomInt } from 'node:crypto';

/** The address node `from` dials to reach node `to`: 127.<net>.<from>.<to>. */
export function pairHost(net: number, from: number, to: number): string {
  return `127.${net}.${from}.${to}`;
}

/** A random second octet (not 0: 127.0.0.x is where everything else on the machine lives). */
export function peerNet(): number {
  return randomInt(1, 255);
}
