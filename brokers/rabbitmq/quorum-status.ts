/**
 * A quorum queue's members and which leads, read from a local node with `rabbitmq-queues
 * quorum_status` (the AMQP API cannot see them): the evidence a node fault records, so a
 * result says where the leader was before a kill and where it went.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { RabbitEndpoint } from './connection.ts';

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

/** Each queue's status, from the first node that answers; an error is part of the answer. */
export async function readQuorumStatus(endpoint: RabbitEndpoint, queues: string[], timeoutMs = 10_000): Promise<QuorumStatus[]> {
  if (!endpoint.node || !endpoint.rabbitmqctl) return queues.map((queue) => ({ queue, error: 'no local node to reach with rabbitmq-queues' }));
  const tool = join(endpoint.rabbitmqctl, '..', 'rabbitmq-queues');
  const out: QuorumStatus[] = [];
  for (const queue of queues) {
    let status: QuorumStatus = { queue, error: 'no node answered' };
    for (const node of endpoint.nodes ?? [endpoint.node]) {
      try {
        const { stdout } = await promisify(execFile)(tool, ['-n', node, 'quorum_status', queue, '--formatter', 'json'], { timeout: timeoutMs, encoding: 'utf8' });
        status = parseQuorumStatus(queue, stdout);
        break;
      } catch (err) {
        const e = err as { stderr?: string; message: string };
        status = { queue, error: (e.stderr?.trim().split('\n')[0] || e.message).slice(0, 200) };
      }
    }
    out.push(status);
  }
  return out;
}
