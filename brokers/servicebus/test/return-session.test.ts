// The consumer adapter on a session queue with batches (receiveBatch 10): a requeued message
// and the rest of its session's batch. With returnSessionOnFailure the rest is abandoned behind
// it and the session comes again in order, each given-back message with its delivery count
// raised; without, the rest is handled first (the reorder). And the price of giving back: at
// MaxDeliveryCount a message that never failed is dead-lettered with the one that did.
// @needs own servicebus beside
import { test } from "node:test";
import assert from "node:assert/strict";
import { startEmulator, type Emulator } from "../emulator/index.ts";
import { ServiceBusConsumer } from "../client.ts";
import { resolveSettings } from "../settings.ts";
import { FAST_RETRY, sleep } from "./helpers.ts";
import { ServiceBusClient } from "@azure/service-bus";
import type { Delivery } from "../../../harness/broker/contract.ts";

const T = { timeout: 30_000 };
const BODIES = ["1", "2", "3", "4", "5"];

/** What the handler saw, "body@deliveryCount" in order, and what is left in the dead-letter queue. */
async function run(emulator: Emulator, queue: string, returnSessionOnFailure: boolean, fails: (body: string, count: number) => boolean): Promise<{ seen: string[]; deadLettered: string[] }> {
  const client = new ServiceBusClient(emulator.connectionString, FAST_RETRY);
  // Sent before the consumer starts: one receive takes all five.
  await client.createSender(queue).sendMessages(BODIES.map((body) => ({ body, sessionId: "k" })));
  const settings = resolveSettings({ kind: "servicebus", sessions: true, maxConcurrentSessions: 1, sessionIdleMs: 500, returnSessionOnFailure });
  const consumer = new ServiceBusConsumer({ connectionString: emulator.connectionString }, settings, { runId: queue, prefix: queue }, { id: "c1", maxInFlight: 1, log: () => {} });
  const seen: string[] = [];
  let settled = 0;
  await consumer.start(async (d: Delivery) => {
    const body = d.payload.toString();
    seen.push(`${body}@${d.deliveryCount}`);
    const fail = fails(body, d.deliveryCount ?? 0);
    await d.settle(fail ? "requeue" : "ack");
    if (!fail) settled++;
  });
  const dlq = client.createReceiver(queue, { subQueueType: "deadLetter", receiveMode: "receiveAndDelete" });
  const deadLettered: string[] = [];
  for (const until = Date.now() + 10_000; Date.now() < until && settled + deadLettered.length < BODIES.length; ) {
    for (const m of await dlq.receiveMessages(10, { maxWaitTimeInMs: 200 })) deadLettered.push(String(m.body));
    await sleep(50);
  }
  await consumer.close();
  await client.close();
  return { seen, deadLettered };
}

let emulator: Emulator;
test.before(async () => {
  emulator = await startEmulator({ port: 0 });
  emulator.createQueue("given-back", { RequiresSession: true, MaxDeliveryCount: 10 });
  emulator.createQueue("handled-on", { RequiresSession: true, MaxDeliveryCount: 10 });
  emulator.createQueue("innocents", { RequiresSession: true, MaxDeliveryCount: 2 });
});
test.after(() => emulator.close());

const failsFirstTime = (body: string, count: number) => body === "1" && count === 1;

test("returnSessionOnFailure: the rest of the batch goes back behind the requeued message, in order, each delivery counted", T, async () => {
  const { seen, deadLettered } = await run(emulator, "given-back", true, failsFirstTime);
  assert.deepEqual(seen, ["1@1", "1@2", "2@2", "3@2", "4@2", "5@2"]);
  assert.deepEqual(deadLettered, []);
});

test("returnSessionOnFailure off: the rest of the batch is handled before the requeued message comes again (a reorder)", T, async () => {
  const { seen } = await run(emulator, "handled-on", false, failsFirstTime);
  assert.deepEqual(seen, ["1@1", "2@1", "3@1", "4@1", "5@1", "1@2"]);
});

test("returnSessionOnFailure at MaxDeliveryCount 2: messages that never failed are dead-lettered with the one that did", T, async () => {
  const { seen, deadLettered } = await run(emulator, "innocents", true, (body) => body === "1");
  assert.deepEqual(seen, ["1@1", "1@2"], "no handler saw 2..5");
  assert.deepEqual(deadLettered, BODIES);
});
