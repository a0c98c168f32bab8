// A team's Node consumer (@azure/service-bus) on a Service Bus queue, under test by convoy
// (docs/consumer-under-test.md). It reads SERVICEBUS_CONNECTION_STRING and SERVICEBUS_QUEUE,
// reports what it handles with convoy's reporter library (the application properties as they
// come), and completes each message once handled.
//
// A plain queue (SERVICEBUS_SESSIONS=false, buggy.yaml): one receiver per process, competing
// for the queue's messages; a frozen process's locked messages are handled after newer ones of
// the same orders that the other process took. A queue with sessions (fixed.yaml): four session
// receivers per process, each holding one session (one order) at a time, its messages in order.
import { ServiceBusClient } from '@azure/service-bus';
import { openReporter } from '../../../reporters/node/convoy-reporter.mjs';

const env = process.env;
const report = await openReporter();
const client = new ServiceBusClient(env.SERVICEBUS_CONNECTION_STRING);
const queue = env.SERVICEBUS_QUEUE;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let stopping = false;

async function handle(receiver, m, lane) {
  report.start(m.applicationProperties, { lane });
  await sleep(1 + Math.random() * 2); // the order's database write
  report.end(m.applicationProperties);
  await receiver.completeMessage(m);
}

/** Receives a batch at a time and handles it in order; a session receiver (no lane given) gives its session up once idle. */
async function drain(receiver, lane) {
  while (!stopping) {
    const batch = await receiver.receiveMessages(10, { maxWaitTimeInMs: 500 });
    for (const m of batch) await handle(receiver, m, lane ?? m.sessionId);
    if (batch.length === 0 && lane === undefined) return; // a session idle: give it up
  }
}

async function queueLoop() {
  const receiver = client.createReceiver(queue);
  while (!stopping) await drain(receiver, queue).catch(async (err) => {
    console.error(`receive failed: ${err.message}`);
    await sleep(200);
  });
}

async function sessionLoop() {
  while (!stopping) {
    const receiver = await client.acceptNextSession(queue).catch(() => undefined); // none free: try again
    if (!receiver) {
      await sleep(100);
      continue;
    }
    await drain(receiver, undefined).catch((err) => console.error(`session ${receiver.sessionId}: ${err.message}`));
    await receiver.close().catch(() => {});
  }
}

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, async () => {
    stopping = true;
    await report.close();
    await client.close().catch(() => {});
    process.exit(0);
  });
}

report.ready();
if (env.SERVICEBUS_SESSIONS === 'true') await Promise.all([1, 2, 3, 4].map(sessionLoop));
else await queueLoop();
