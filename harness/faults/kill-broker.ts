import type { FaultKind } from './contract.ts';

/**
 * Stop one broker node (SIGKILL by default: a crash) and start it again at the window's end.
 * Needs a deployment whose nodes convoy controls.
 */
const killBroker: FaultKind = {
  kind: 'kill-broker',
  destructive: true,
  schema: {
    type: 'object',
    properties: {
      node: { type: 'string', description: 'The node: node-1, node-2, ... (the deployment\'s nodes; Kafka has broker.nodes of them). Default the last node.' },
      signal: { enum: ['SIGKILL', 'SIGTERM'], description: 'SIGKILL (default): a crash; SIGTERM: a clean shutdown.' },
    },
  },
  doc: {
    summary: 'Stops one broker node and starts it again at the window\'s end. The evidence has the replication state before the kill, just after it, while down and after the restart (Kafka: leaders and ISR; RabbitMQ hash lanes: the consistent hash ring).',
    needs: 'Broker nodes convoy runs itself: the local runtime (not containers or external), a broker other than the memory broker.',
    example: '{ name: kill-node, kind: kill-broker, node: node-2, atMs: 4s, durationMs: 6s }',
    exampleIn: 'broker: { kind: kafka, nodes: 3, topic: { replicationFactor: 3 } }',
  },
  check(spec, scope) {
    const nodes = scope.capabilities?.nodes;
    if (!nodes) return [];
    if (nodes.length === 0) return [`${scope.path}: ${scope.broker} on the ${scope.runtime} runtime has no broker nodes convoy can kill (convoy does not run its processes)`];
    if (spec.node !== undefined && !nodes.includes(spec.node as string)) return [`${scope.path}.node: no node ${JSON.stringify(spec.node)} in this deployment; expected one of ${nodes.join(', ')}`];
    return [];
  },
  async start(spec, ctx) {
    const nodes = ctx.deployment.nodes;
    if (nodes.length === 0) throw new Error(`fault ${spec.name}: this deployment has no broker nodes convoy controls`);
    const node = spec.node ? nodes.find((n) => n.id === spec.node) : nodes[nodes.length - 1];
    if (!node) throw new Error(`fault ${spec.name}: no node "${String(spec.node)}" (have ${nodes.map((n) => n.id).join(', ')})`);
    const pid = node.pid();
    const describe = () => (ctx.admin.describeReplication ? ctx.admin.describeReplication().catch((e: Error) => ({ error: e.message })) : Promise.resolve(undefined));
    // Read before the kill too: a single node says nothing while it is down, and what a restart
    // rebuilds (a consistent hash ring) is judged against what it was.
    const before = await describe();
    await node.stop((spec.signal as 'SIGKILL' | 'SIGTERM' | undefined) ?? 'SIGKILL');
    const replication = await describe();
    let ended = false;
    return {
      evidence: { node: node.id, pid, running: node.pid() !== undefined, before, replication },
      async end() {
        if (ended) return undefined;
        ended = true;
        // Leaders move and the ISR shrinks only once the cluster notices the loss (the
        // broker session timeout): the state just before the restart shows it.
        const whileDown = await describe();
        await node.start();
        const after = await describe();
        return { node: node.id, pid: node.pid(), whileDown, replication: after };
      },
    };
  },
};
export default killBroker;
