/**
 * A confluent consumer in a process of its own, for confluent-consumer.test.ts to SIGKILL:
 * argv[2] is JSON {endpoint, settings, names, ackUpTo}. It acks every message whose seq is at
 * most ackUpTo and holds (never settles) the others; one stdout line per delivery:
 * `got <lane> <offset> <seq>`, and `ready` once it has its partitions.
 */
import { confluentConsumer } from '../client-confluent.ts';

const { endpoint, settings, names, ackUpTo } = JSON.parse(process.argv[2]!);
const c = await confluentConsumer(endpoint, settings, names, { id: 'doomed', maxInFlight: 1, log: () => {} });
await c.start(async (d) => {
  const { seq } = JSON.parse(d.payload.toString()) as { seq: number };
  process.stdout.write(`got ${d.lane} ${d.offset} ${seq}\n`);
  if (seq <= ackUpTo) await d.settle('ack');
});
await c.ready(60_000);
process.stdout.write('ready\n');
// Runs until killed.
setInterval(() => {}, 1_000);
