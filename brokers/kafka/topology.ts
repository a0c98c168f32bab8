/**
 * The Kafka topology, described once and rendered two ways: server.properties for brokers
 * started as local processes (local.ts), environment variables of the apache/kafka image for
 * the containers runtime (containers.ts).
 *
 * Every node has three listeners:
 *   CLIENT      what clients use. Its ADVERTISED address is the node's Toxiproxy proxy, so after
 *               bootstrap every client connection (metadata, produce, fetch, group coordinator)
 *               still crosses Toxiproxy and a network fault really cuts or slows it.
 *   INTERNAL    broker-to-broker replication, direct (not proxied).
 *   CONTROLLER  KRaft quorum traffic, direct.
 *   ADMIN       (optional) the harness's own control path (create/delete the topic, describe
 *               the group and ISR as fault evidence), advertised directly so that a network
 *               fault on the client links never blinds the harness. No workload client uses it.
 * A single node is a combined broker+controller; three nodes are three combined nodes with a
 * three-voter quorum (each can be killed; two keep the quorum and the ISR of min.insync 2).
 */
import { randomBytes } from 'node:crypto';

export interface NodeAddresses {
  id: number;
  /** Where the broker binds each listener (host:port; host may be 0.0.0.0 in a container). */
  bindClient: string;
  bindInternal: string;
  bindController: string;
  /** What other nodes use to reach this one (INTERNAL and CONTROLLER). */
  internal: string;
  controller: string;
  /** What clients are told to use: the Toxiproxy proxy in front of bindClient. */
  advertisedClient: string;
  /** The harness's direct listener as advertised, if any... */
  admin?: string;
  /** ...and where it binds, when that differs (containers bind 0.0.0.0). */
  bindAdmin?: string;
}

export interface TopologyOptions {
  nodes: NodeAddresses[];
  logDir: (id: number) => string;
  /** User overrides (scenario brokerConfig): applied last. */
  extra?: Record<string, string | number | boolean>;
}

/** Broker defaults chosen for a fast start and small footprint on a 2-core machine. */
export function baseConfig(count: number): Record<string, string> {
  const rf = String(Math.min(3, count));
  const minIsr = String(count >= 3 ? 2 : 1);
  return {
    'process.roles': 'broker,controller',
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'INTERNAL',
    'listener.security.protocol.map': 'CLIENT:PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT,ADMIN:PLAINTEXT',
    'auto.create.topics.enable': 'false',
    'default.replication.factor': rf,
    'min.insync.replicas': minIsr,
    'offsets.topic.replication.factor': rf,
    'offsets.topic.num.partitions': '10',
    'transaction.state.log.replication.factor': rf,
    'transaction.state.log.min.isr': minIsr,
    'transaction.state.log.num.partitions': '4',
    'share.coordinator.state.topic.replication.factor': rf,
    'share.coordinator.state.topic.min.isr': minIsr,
    'group.initial.rebalance.delay.ms': '0',
    // The consumer group protocol's session and heartbeat bounds (default 45 s and 5 s at the
    // least) widened, so a scenario can give such a group the short timeouts it gives classic ones.
    'group.consumer.min.session.timeout.ms': '1000',
    'group.consumer.min.heartbeat.interval.ms': '500',
    // A share group's record lock may be as short as a scenario's stall (the bound is 15 s by default).
    'group.share.min.record.lock.duration.ms': '1000',
    'unclean.leader.election.enable': 'false',
    // Fence a dead broker (and move leadership) after 6 s instead of 9 s.
    'broker.session.timeout.ms': '6000',
    'broker.heartbeat.interval.ms': '1000',
    'num.network.threads': '2',
    'num.io.threads': '4',
    'background.threads': '4',
    'num.recovery.threads.per.data.dir': '1',
    'log.segment.bytes': String(64 * 1024 * 1024),
    'log.index.size.max.bytes': String(2 * 1024 * 1024),
    'log.retention.hours': '24',
    'log.cleaner.dedupe.buffer.size': String(16 * 1024 * 1024),
    'log.cleaner.threads': '1',
    'delete.topic.enable': 'true',
  };
}

export function brokerProperties(node: NodeAddresses, opts: TopologyOptions): Record<string, string> {
  const props: Record<string, string> = {
    ...baseConfig(opts.nodes.length),
    'node.id': String(node.id),
    'controller.quorum.voters': opts.nodes.map((n) => `${n.id}@${n.controller}`).join(','),
    listeners: `CLIENT://${node.bindClient},INTERNAL://${node.bindInternal},CONTROLLER://${node.bindController}${node.admin ? `,ADMIN://${node.bindAdmin ?? node.admin}` : ''}`,
    'advertised.listeners': `CLIENT://${node.advertisedClient},INTERNAL://${node.internal}${node.admin ? `,ADMIN://${node.admin}` : ''}`,
    'log.dirs': opts.logDir(node.id),
  };
  for (const [k, v] of Object.entries(opts.extra ?? {})) props[k] = String(v);
  return props;
}

export function renderProperties(props: Record<string, string>): string {
  return (
    Object.entries(props)
      .map(([k, v]) => `${k}=${v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`)
      .join('\n') + '\n'
  );
}

/** A KRaft cluster id: 16 random bytes, base64url without padding (what StorageTool random-uuid prints). */
export function newClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id; // as Kafka's Uuid.randomUuid: no leading dash
  }
}

/** Toxiproxy proxy name for a node's client listener. */
export function proxyName(id: number): string {
  return `kafka-node-${id}`;
}
/** Link / BrokerNode name for a node, as scenarios write it: node-1, node-2, ... */
export function nodeName(id: number): string {
  return `node-${id}`;
}
