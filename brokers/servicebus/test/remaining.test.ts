// BrokerAdmin.remaining on the emulator, through its HTTP queue API: active, locked and
// dead-lettered messages are still held; a completed one is not.
// @needs own servicebus beside
import { test } from "node:test";
import assert from "node:assert/strict";
import { ServiceBusClient } from "@azure/service-bus";
import { startEmulator } from "../emulator/index.ts";
import { ServiceBusAdmin } from "../admin.ts";
import { resolveSettings } from "../settings.ts";
import { FAST_RETRY } from "./helpers.ts";

test("remaining counts active, locked and dead-lettered messages of the run's queue", { timeout: 30_000 }, async () => {
  const emulator = await startEmulator({ port: 0, adminPort: 0 });
  const names = { runId: "rem", prefix: "convoy-rem" };
  const admin = new ServiceBusAdmin(
    { connectionString: emulator.connectionString, adminUrl: `http://127.0.0.1:${emulator.adminPort}` },
    resolveSettings({ kind: "servicebus", sessions: false }) as never,
    names,
  );
  const client = new ServiceBusClient(emulator.connectionString, FAST_RETRY);
  try {
    await admin.createDestinations();
    const q = names.prefix;
    await client.createSender(q).sendMessages([{ body: "a" }, { body: "b" }, { body: "c" }, { body: "d" }]);
    assert.deepEqual(await admin.remaining().then((r) => [r.known, r.total]), [true, 4]);
    const receiver = client.createReceiver(q, { maxAutoLockRenewalDurationInMs: 0 });
    const got = await receiver.receiveMessages(3, { maxWaitTimeInMs: 2000 });
    assert.equal(got.length, 3);
    await receiver.completeMessage(got[0]);
    await receiver.deadLetterMessage(got[1]);
    // got[2] stays locked, the fourth active.
    const r = await admin.remaining();
    assert.equal(r.total, 3);
    const d = r.detail as Record<string, number>;
    assert.deepEqual([d.active, d.locked, d.deadLetter], [1, 1, 1]);
    assert.equal(r.deliverable, 2, "the dead-lettered one cannot come back by itself");
    await receiver.completeMessage(got[2]);
    const [last] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    await receiver.completeMessage(last);
    const dlq = client.createReceiver(q, { subQueueType: "deadLetter" });
    const [dead] = await dlq.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    await dlq.completeMessage(dead);
    assert.equal((await admin.remaining()).total, 0);
  } finally {
    await client.close();
    await emulator.close();
  }
});
