import { checkCapability, type FaultKind } from './contract.ts';

/**
 * Move dead-lettered messages back into the main destination (a redrive
 * puts an old change on top of a newer one). Happens at the window's start.
 */
const redrive: FaultKind = {
  kind: 'redrive',
  destructive: true,
  schema: { type: 'object', properties: {} },
  doc: {
    summary: 'Moves the dead-lettered messages back into the main destination at the window\'s start: old changes land on top of newer ones. The evidence counts the messages moved.',
    needs: 'A dead-letter queue: RabbitMQ, SQS, Pub/Sub with `broker.deadLetter.enabled: true`, Service Bus, the memory broker in `mode: queue` with `maxDeliveries` above 0, a Kafka share group with `broker.consumer.share.deadLetterTopic: true` (Kafka 4.4 on). A Kafka consumer group has none.',
    example: '{ name: redrive, kind: redrive, atMs: 7s, durationMs: 1s }',
    exampleIn: 'broker: { kind: rabbitmq, deadLetter: { enabled: true } }',
  },
  check: (_spec, scope) => checkCapability(scope.path, scope, 'redrive dead letters', (c) => c.redriveDeadLetters),
  async start(spec, ctx) {
    if (!ctx.admin.redriveDeadLetters) throw new Error(`fault ${spec.name}: broker ${ctx.deployment.broker} has no dead-letter redrive`);
    const moved = await ctx.admin.redriveDeadLetters();
    return { evidence: { moved }, end: async () => undefined };
  },
};
export default redrive;
