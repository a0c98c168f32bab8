import { ToxiproxyApi } from '../net/toxiproxy.ts';
import type { NetworkLink } from '../broker/contract.ts';
import type { FaultContext, FaultKind, StartedFault } from './contract.ts';
import { checkCapability, endInWorker, startInWorker } from './contract.ts';
import type { FaultSpec } from '../spec/types.ts';

/**
 * A network partition between broker nodes (Jepsen's main nemesis): the named nodes are cut off
 * from the others on the deployment's peer links (`link.peer`, one Toxiproxy proxy per
 * directed pair of nodes and kind of traffic), while clients still reach every node. The cut
 * is a `timeout` toxic with timeout 0 on both streams: open connections stay open and carry
 * nothing, new ones connect and carry nothing, as when packets are dropped; at the heal the
 * toxics are removed and what TCP held flows again. With `flapMs` the cut is made and healed
 * every flapMs through the window (a flapping link). The proxies live in the run's Toxiproxy,
 * so nothing outlives the harness; the undo is registered with the clean-up like every fault's.
 *
 *   nodes      node-2, [node-1, node-2], controller-leader (the active KRaft controller at
 *              the start) or partition-leader (the leader of lane `lane`, default the first)
 *   direction  both (default); outbound: only the connections the isolated nodes open to the
 *              others (their fetches from leaders, their votes and heartbeats); inbound: only
 *              the others' connections to them
 *   traffic    all (default), replication or controller (Kafka's two listeners; RabbitMQ's
 *              nodes have one kind, Erlang distribution)
 *
 * The broker's describeReplication gives `lanes` (leader, replicas, in-sync replicas per lane:
 * Kafka's partitions, RabbitMQ's quorum queues with their members that answer).
 * The evidence: which nodes were cut and why, the ISR as it changed through the window (polled
 * every second on the harness's own direct listener), the consensus leader, the proxies'
 * toxics; and from each producer process, the request errors its client met and retried in
 * the window (a `client-errors` mark, where the client can tell: librdkafka with `debug: msg`). The fault ends when the links are healed and every partition's ISR is full again, or
 * 20 s after the heal: the recovery belongs to the fault's window.
 */
const RECOVERY_MS = 20_000;
const POLL_MS = 1_000;

type Direction = 'both' | 'outbound' | 'inbound';
type Traffic = 'all' | 'replication' | 'controller';
type Replication = { lanes?: Record<string, { leader: number; isr: number[]; replicas: number[] }>; error?: string };

const isolate: FaultKind = {
  kind: 'isolate',
  destructive: true,
  schema: {
    type: 'object',
    properties: {
      nodes: {
        anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }],
        description: 'node-2, [node-1, node-2], controller-leader or partition-leader',
      },
      lane: { type: 'string', description: 'with partition-leader: the lane whose leader is cut off (p0, p1, ...; default the first)' },
      direction: { enum: ['both', 'outbound', 'inbound'], description: 'both (default); outbound: only the connections the cut nodes open to the others; inbound: only the others\' connections to them' },
      traffic: { enum: ['all', 'replication', 'controller'], description: 'all (default), replication or controller' },
      flapMs: { type: 'integer', minimum: 100, description: 'cut and heal every flapMs through the window (a flapping link)' },
    },
    required: ['nodes'],
  },
  doc: {
    summary: 'A network partition between broker nodes: the named nodes are cut off from the others on their peer links while clients still reach every node; healed at the window\'s end, which lasts until every partition\'s ISR is full again (at most 20 s more). The evidence has the ISR as it changed, the controller, and the producers\' request errors.',
    needs: 'A local cluster with proxied peer links: `broker: { kind: kafka, nodes: 3, peerLinks: proxied }` (or `kind: rabbitmq`).',
    example: '{ name: cut-minority, kind: isolate, nodes: node-3, atMs: 4s, durationMs: 15s }',
    exampleIn: 'broker: { kind: kafka, nodes: 3, peerLinks: proxied, topic: { replicationFactor: 3 } }',
  },
  check(spec, scope) {
    const refused = checkCapability(scope.path, scope, 'cut broker nodes off from each other', (c) => c.isolate ?? 'it has no peer links convoy can cut');
    if (refused.length || !scope.capabilities) return refused;
    const names = targets(spec);
    const known = scope.capabilities.nodes;
    const dynamic = names.length === 1 && (names[0] === 'controller-leader' || names[0] === 'partition-leader');
    if (dynamic) return [];
    const bad = names.filter((n) => !known.includes(n));
    if (bad.length) return [`${scope.path}.nodes: no node ${bad.map((b) => JSON.stringify(b)).join(', ')} in this deployment; expected controller-leader, partition-leader or some of ${known.join(', ')}`];
    if (names.length >= known.length) return [`${scope.path}.nodes: cutting off all ${known.length} nodes leaves no other side; name fewer`];
    return [];
  },
  async start(spec: FaultSpec, ctx: FaultContext): Promise<StartedFault> {
    const before = await replication(ctx);
    const { nodes, why } = resolveNodes(spec, ctx, before);
    const links = cutLinks(ctx.deployment.links, nodes, (spec.direction as Direction | undefined) ?? 'both', (spec.traffic as Traffic | undefined) ?? 'all');
    if (links.length === 0) throw new Error(`isolate ${spec.name}: this deployment has no peer links to cut (broker.peerLinks: proxied)`);
    const api = new ToxiproxyApi(links[0]!.toxiproxyUrl);
    const proxies = links.flatMap((l) => l.proxies);
    const toxic = `${spec.name}-cut`;
    const cut = async () => {
      for (const p of proxies) {
        for (const stream of ['upstream', 'downstream'] as const) await api.addToxic(p, { type: 'timeout', name: `${toxic}-${stream}`, stream, attributes: { timeout: 0 } });
      }
    };
    const heal = async () => {
      for (const p of proxies) for (const stream of ['upstream', 'downstream']) await api.removeToxic(p, `${toxic}-${stream}`);
    };
    const t0 = Date.now();
    await cut();
    let isCut = true;
    const flaps: { atMs: number; cut: boolean }[] = [{ atMs: 0, cut: true }];
    let busy: Promise<void> = Promise.resolve();
    const flapMs = spec.flapMs as number | undefined;
    const flapper = flapMs
      ? setInterval(() => {
          busy = busy.then(async () => {
            await (isCut ? heal() : cut());
            isCut = !isCut;
            flaps.push({ atMs: Date.now() - t0, cut: isCut });
          }).catch((e: Error) => ctx.log(`isolate ${spec.name}: flap failed: ${e.message}`));
        }, flapMs)
      : undefined;
    const isr = new IsrLog(t0, before);
    // One reading at a time: a broker's reading can take seconds (RabbitMQ's CLI waits for a
    // member that does not answer), and readings piled up would load the machine.
    let polling = true;
    let poller: NodeJS.Timeout | undefined;
    const poll = (): void => {
      poller = setTimeout(
        () =>
          void replication(ctx).then((r) => {
            if (!polling) return;
            isr.add(r);
            poll();
          }),
        POLL_MS,
      );
    };
    poll();
    const evidence = {
      nodes,
      why,
      consensusLeader: ctx.deployment.consensusLeader?.(),
      proxies: await Promise.all(proxies.map((p) => api.describe(p))),
      replication: before,
    };
    for (const p of ctx.producers()) startInWorker(p, 'isolate', { fault: spec.name });
    ctx.log(`isolate ${spec.name}: cut ${nodes.join(', ')} off (${why}) on ${proxies.length} peer proxies`);
    let ended = false;
    return {
      evidence,
      async end() {
        if (ended) return undefined;
        ended = true;
        if (flapper) clearInterval(flapper);
        await busy;
        const whileCut = { consensusLeader: ctx.deployment.consensusLeader?.(), replication: await replication(ctx) };
        isr.add(whileCut.replication);
        if (isCut) await heal();
        const healedAtMs = Date.now() - t0;
        const deadline = Date.now() + RECOVERY_MS;
        let after = await replication(ctx);
        while (!full(after) && Date.now() < deadline) {
          isr.add(after);
          await new Promise((r) => setTimeout(r, 250));
          after = await replication(ctx);
        }
        polling = false;
        clearTimeout(poller);
        isr.add(after);
        for (const p of ctx.producers()) endInWorker(p, 'isolate');
        return {
          healedAtMs,
          recoveredAtMs: full(after) ? Date.now() - t0 : undefined,
          whileCut,
          flaps: flapMs ? flaps : undefined,
          isrChanges: isr.changes,
          consensusLeader: ctx.deployment.consensusLeader?.(),
          proxies: await Promise.all(proxies.map((p) => api.describe(p))),
          replication: after,
        };
      },
    };
  },
  worker: {
    /** Counts the client's request errors over the window: a `client-errors` mark at its end. */
    producer(args, side) {
      // A client in a process of its own answers when asked: the counts are awaited.
      const seen = async () => (await side.client.errorsSeen?.()) ?? {};
      const before = seen();
      before.catch(() => {}); // judged at the end (a worker stopped before it: never)
      return {
        end() {
          Promise.all([before, seen()]).then(
            ([was, now]) => {
              const errors = Object.fromEntries(
                Object.entries(now)
                  .map(([e, n]) => [e, n - (was[e] ?? 0)] as const)
                  .filter(([, n]) => n > 0),
              );
              side.mark('client-errors', { fault: args.fault, process: side.id, known: side.client.errorsSeen !== undefined, errors });
            },
            (e: Error) => side.mark('client-errors', { fault: args.fault, process: side.id, known: false, errors: {}, why: e.message }),
          );
        },
      };
    },
  },
};
export default isolate;

function targets(spec: FaultSpec): string[] {
  const n = spec.nodes as string | string[];
  return Array.isArray(n) ? n : [n];
}

function resolveNodes(spec: FaultSpec, ctx: FaultContext, rep: Replication): { nodes: string[]; why: string } {
  const names = targets(spec);
  if (names[0] === 'controller-leader') {
    const leader = ctx.deployment.consensusLeader?.();
    if (!leader) throw new Error(`isolate ${spec.name}: the active controller is not known`);
    return { nodes: [leader], why: 'the active controller (KRaft quorum leader)' };
  }
  if (names[0] === 'partition-leader') {
    const lanes = rep.lanes ?? {};
    const lane = (spec.lane as string | undefined) ?? Object.keys(lanes).sort()[0];
    const leader = lane ? lanes[lane]?.leader : undefined;
    if (leader === undefined || leader < 0) throw new Error(`isolate ${spec.name}: no leader known for lane ${String(lane)} (${rep.error ?? 'no such lane'})`);
    return { nodes: [`node-${leader}`], why: `the leader of ${lane}` };
  }
  return { nodes: names, why: 'named' };
}

/** The peer links between the isolated set and the rest, in the chosen direction and traffic. */
export function cutLinks(links: NetworkLink[], nodes: string[], direction: Direction, traffic: Traffic): NetworkLink[] {
  const inside = new Set(nodes);
  return links.filter((l) => {
    if (!l.peer) return false;
    if (traffic !== 'all' && l.peer.traffic !== traffic) return false;
    const out = inside.has(l.peer.from) && !inside.has(l.peer.to);
    const into = !inside.has(l.peer.from) && inside.has(l.peer.to);
    return direction === 'both' ? out || into : direction === 'outbound' ? out : into;
  });
}

async function replication(ctx: FaultContext): Promise<Replication> {
  if (!ctx.admin.describeReplication) return { error: 'the broker reports no replication state' };
  return (await ctx.admin.describeReplication().catch((e: Error) => ({ error: e.message }))) as Replication;
}

function full(r: Replication): boolean {
  const lanes = Object.values(r.lanes ?? {});
  return lanes.length > 0 && lanes.every((p) => p.isr.length === p.replicas.length && p.leader >= 0);
}

/** Leader and ISR per lane as they change, with the time since the cut. */
class IsrLog {
  readonly changes: { atMs: number; lanes: Record<string, string> }[] = [];
  private last = '';
  constructor(
    private readonly t0: number,
    first: Replication,
  ) {
    this.add(first);
  }
  add(r: Replication): void {
    if (!r.lanes) return;
    const lanes = Object.fromEntries(Object.entries(r.lanes).map(([lane, p]) => [lane, `leader ${p.leader} isr ${[...p.isr].sort().join(',')}`]));
    const key = JSON.stringify(lanes);
    if (key === this.last) return;
    this.last = key;
    this.changes.push({ atMs: Math.max(0, Date.now() - this.t0), lanes });
  }
}
