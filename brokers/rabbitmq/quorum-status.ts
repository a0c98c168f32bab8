/**
 * A quorum queue's members and which leads, read from a local node with `rabbitmq-queues
 * quorum_status` (the AMQP API cannot see them): the evidence a node fault records, so a
 * result says where the leader was before a kill and where it went.
 */
import type { RabbitEndpoint } from './connection.ts';
import { cliError, runCli } from './ctl.ts';

export interface QuorumStatus {
  queue: string;
  /** The member whose Raft state is leader, if one is. */
  leader?: string;
  members?: { node: string; state: string }[];
  error?: string;
}

/** Parses `quorum_status --formatter json`: one object per member ("Node Name", "Raft State", ...). */
export function parseQuorumStatus(queue: string, stdout: string): QuorumStatus {
  let rows: unknown;
  try {
    rows = JSON.parse(stdout);
  } catch {
    return { queue, error: `rabbitmq-queues said: ${stdout.trim().slice(0, 200)}` };
  }
  if (!Array.isArray(rows)) return { queue, error: `rabbitmq-queues said: ${stdout.trim().slice(0, 200)}` };
  const field = (row: Record<string, unknown>, re: RegExp) => String(Object.entries(row).find(([k]) => re.test(k))?.[1] ?? '');
  const members = (rows as Record<string, unknown>[]).map((r) => ({ node: field(r, /node/i), state: field(r, /raft state|state/i) }));
  const leader = members.find((m) => m.state === 'leader')?.node;
  return { queue, ...(leader ? { leader } : {}), members };
}

/** Each queue's status, from the first node that answers with its members; an error is part of the answer. */
export async function readQuorumStatus(endpoint: RabbitEndpoint, queues: string[], timeoutMs = 10_000): Promise<QuorumStatus[]> {
  if (!endpoint.node || !endpoint.rabbitmqctl) return queues.map((queue) => ({ queue, error: 'no local node to reach with rabbitmq-queues' }));
  const out: QuorumStatus[] = [];
  for (const queue of queues) {
    let status: QuorumStatus = { queue, error: 'no node answered' };
    for (const node of endpoint.nodes ?? [endpoint.node]) {
      try {
        status = parseQuorumStatus(queue, await runCli(endpoint, 'rabbitmq-queues', node, ['quorum_status', queue, '--formatter', 'json'], timeoutMs));
        // Output that is no member list (seen once under load: nothing at all): ask the next node.
        if (!status.error) break;
      } catch (err) {
        status = { queue, error: cliError(err) };
      }
    }
    out.push(status);
  }
  return out;
}

/** A lane's members in the form the isolate fault reads (as Kafka's partitions): node numbers, 1-based. */
export interface LaneReplicas {
  /** The leader's node number; -1 when no member leads. */
  leader: number;
  replicas: number[];
  /** The members that answer as leader or follower. */
  isr: number[];
}

/** Each queue's status as lanes (a lane is a queue), node names numbered by their place in `nodes`. */
export function quorumLanes(statuses: QuorumStatus[], nodes: string[]): Record<string, LaneReplicas> {
  const num = (node: string) => nodes.indexOf(node) + 1;
  return Object.fromEntries(
    statuses
      .filter((s) => s.members)
      .map((s) => [
        s.queue,
        {
          leader: s.leader ? num(s.leader) : -1,
          replicas: s.members!.map((m) => num(m.node)).sort((a, b) => a - b),
          isr: s.members!.filter((m) => m.state === 'leader' || m.state === 'follower').map((m) => num(m.node)).sort((a, b) => a - b),
        },
      ]),
  );
}
