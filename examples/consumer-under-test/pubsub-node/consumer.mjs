// A team's Node consumer (@google-cloud/pubsub) on a Pub/Sub subscription, under test by convoy
// (docs/consumer-under-test.md). The client library reads PUBSUB_EMULATOR_HOST itself; the
// service reads PUBSUB_PROJECT_ID and PUBSUB_SUBSCRIPTION, reports what it handles with convoy's
// reporter library (the message attributes as they come), and acks each message once handled.
//
//   node consumer.mjs buggy   every message handled as it arrives: the client calls back for
//                             each one without waiting for the last, so two messages of one order
//                             run side by side, and a frozen process's leased ones come late.
//   node consumer.mjs fixed   an ordered subscription (fixed.yaml: messageOrdering), and each
//                             ordering key's messages handled one after another.
import { PubSub } from '@google-cloud/pubsub';
import { openReporter } from '../../../reporters/node/convoy-reporter.mjs';

const mode = process.argv[2];
if (mode !== 'buggy' && mode !== 'fixed') {
  console.error('usage: node consumer.mjs buggy|fixed');
  process.exit(2);
}
const env = process.env;
const report = await openReporter();
const pubsub = new PubSub({ projectId: env.PUBSUB_PROJECT_ID });
const subscription = pubsub.subscription(env.PUBSUB_SUBSCRIPTION, { flowControl: { maxMessages: 20, allowExcessMessages: false } });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function handle(message) {
  report.start(message.attributes, { lane: message.orderingKey || env.PUBSUB_SUBSCRIPTION });
  await sleep(1 + Math.random() * 4); // the order's database write
  report.end(message.attributes);
  message.ack();
}

/** The tail of each ordering key's chain (fixed): a key's next message waits for its last. */
const chains = new Map();
subscription.on('message', (message) => {
  if (mode === 'buggy') return void handle(message);
  const key = message.orderingKey;
  const next = (chains.get(key) ?? Promise.resolve()).then(() => handle(message));
  chains.set(key, next);
  void next.then(() => chains.get(key) === next && chains.delete(key));
});
subscription.on('error', (err) => console.error(`subscriber: ${err.message}`));

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, async () => {
    await subscription.close().catch(() => {});
    await report.close();
    process.exit(0);
  });
}
await subscription.getMetadata(); // the subscription answers: the stream is opening
report.ready();
