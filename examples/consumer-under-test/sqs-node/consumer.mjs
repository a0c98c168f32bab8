// A team's Node consumer (@aws-sdk/client-sqs) on an SQS FIFO queue, under test by convoy
// (docs/consumer-under-test.md).
//
//   node consumer.mjs buggy   each received batch (up to 10 messages) handled at once
//                             (Promise.all): a batch holding two messages of one message group
//                             loses their order (a backlog after a stall makes such batches).
//   node consumer.mjs fixed   each message group of a batch in order; groups side by side.
//
// It reads its connection from SQS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID/SECRET and
// SQS_QUEUE_NAME, reports what it handles with convoy's reporter library (SQS message attributes
// as they come), and deletes each message once handled.
import { DeleteMessageCommand, GetQueueUrlCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { openReporter } from '../../../reporters/node/convoy-reporter.mjs';

const mode = process.argv[2];
if (mode !== 'buggy' && mode !== 'fixed') {
  console.error('usage: node consumer.mjs buggy|fixed');
  process.exit(2);
}
const env = process.env;
const report = await openReporter();
const sqs = new SQSClient({ region: env.AWS_REGION, endpoint: env.SQS_ENDPOINT_URL });
const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: env.SQS_QUEUE_NAME }));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let stopping = false;

async function handle(msg) {
  const lane = msg.Attributes?.MessageGroupId;
  report.start(msg.MessageAttributes, { lane });
  await sleep(1 + Math.random() * 4); // the order's database write
  report.end(msg.MessageAttributes);
  await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: msg.ReceiptHandle }));
}

/** A batch's messages grouped by message group, each group's in the order received. */
function byGroup(messages) {
  const groups = new Map();
  for (const m of messages) {
    const g = m.Attributes?.MessageGroupId ?? '';
    groups.set(g, [...(groups.get(g) ?? []), m]);
  }
  return [...groups.values()];
}

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, async () => {
    stopping = true;
    await report.close();
    process.exit(0);
  });
}

report.ready();
while (!stopping) {
  const Messages = await sqs.send(new ReceiveMessageCommand({
    QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageAttributeNames: ['All'], MessageSystemAttributeNames: ['MessageGroupId'],
  })).then((r) => r.Messages ?? [], async (err) => {
    console.error(`receive failed: ${err.message}`); // a cut link: try again
    await sleep(200);
    return [];
  });
  if (mode === 'buggy') await Promise.all(Messages.map(handle));
  else await Promise.all(byGroup(Messages).map(async (group) => { for (const m of group) await handle(m); }));
}
