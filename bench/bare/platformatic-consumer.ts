/**
 * @platformatic/kafka's consumer alone: its MessagesStream read in flowing mode, counting
 * messages and nothing else (autocommit off, nothing committed), from the earliest offset with a
 * fresh group. Arguments and output: bench/bare/common.ts.
 */
import { Consumer } from '@platformatic/kafka';
import { bareArgs, busyWindow } from './common.ts';

const a = bareArgs();
const consumer = new Consumer({ bootstrapBrokers: a.bootstrap.split(','), clientId: 'bench-bare', groupId: a.group, autocommit: false });
const stream = await consumer.consume({ topics: [a.topic], mode: 'earliest', autocommit: false });
const window = busyWindow();
let read = 0;
let done: () => void = () => {};
const finished = new Promise<void>((r) => (done = r));
const deadline = setTimeout(() => done(), 120_000);
stream.on('data', () => {
  window.first();
  if (++read >= a.messages) done();
});
await finished;
clearTimeout(deadline);
window.finish(read);
await consumer.close(true).catch(() => {});
process.exit(0);
