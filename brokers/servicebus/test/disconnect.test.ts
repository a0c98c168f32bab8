// Abrupt disconnects (what Toxiproxy does to a connection): a dropped connection's message locks
// run out normally, while its session locks are released at once, as when the receiver closes.
// @needs own servicebus beside
import { test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { ServiceBusClient } from "@azure/service-bus";
import { withHarness, sleep } from "./helpers.ts";

const T = { timeout: 20_000 };

interface Proxy {
  connectionString: string;
  /** Stops accepting and cuts every proxied connection; the emulator side gets a TCP reset. */
  cut(): Promise<void>;
}

async function startProxy(targetPort: number): Promise<Proxy> {
  const pairs = new Set<[net.Socket, net.Socket]>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, "127.0.0.1");
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    client.pipe(upstream).pipe(client);
    for (const s of pair) s.on("error", () => undefined);
    client.on("close", () => pairs.delete(pair));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    connectionString: `Endpoint=sb://127.0.0.1:${port};SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true`,
    cut: async () => {
      server.close();
      for (const [client, upstream] of pairs) {
        upstream.resetAndDestroy();
        client.destroy();
      }
      await sleep(100);
    },
  };
}

test("a dropped connection's message lock is not released early; it expires and counts", T, () =>
  withHarness({ q: { LockDuration: "PT2S", MaxDeliveryCount: 5 } }, async ({ emulator, client }) => {
    await client.createSender("q").sendMessages({ body: "in flight" });
    const proxy = await startProxy(emulator.port);
    const doomed = new ServiceBusClient(proxy.connectionString, { retryOptions: { maxRetries: 0, timeoutInMs: 2000 } });
    try {
      const [m] = await doomed
        .createReceiver("q", { maxAutoLockRenewalDurationInMs: 0 })
        .receiveMessages(1, { maxWaitTimeInMs: 2000 });
      assert.equal(m.body, "in flight");
      const lockedAt = Date.now();
      await proxy.cut();
      const survivor = client.createReceiver("q", { maxAutoLockRenewalDurationInMs: 0 });
      assert.deepEqual(await survivor.receiveMessages(1, { maxWaitTimeInMs: 800 }), [], "still locked after the drop");
      const [again] = await survivor.receiveMessages(1, { maxWaitTimeInMs: 3000 });
      assert.ok(Date.now() - lockedAt >= 1900, "redelivered only once the lock ran out");
      assert.equal(again.deliveryCount, 1);
      await survivor.completeMessage(again);
    } finally {
      await doomed.close().catch(() => undefined);
    }
  }));

test("a dropped connection releases its session lock at once, without counting a delivery", T, () =>
  withHarness({ s: { RequiresSession: true, LockDuration: "PT30S" } }, async ({ emulator, client }) => {
    await client.createSender("s").sendMessages([
      { body: 1, sessionId: "S" },
      { body: 2, sessionId: "S" },
    ]);
    const proxy = await startProxy(emulator.port);
    const doomed = new ServiceBusClient(proxy.connectionString, { retryOptions: { maxRetries: 0, timeoutInMs: 2000 } });
    try {
      const held = await doomed.acceptSession("s", "S", { maxAutoLockRenewalDurationInMs: 0 });
      const [m] = await held.receiveMessages(1, { maxWaitTimeInMs: 2000 });
      assert.equal(m.body, 1);
      await proxy.cut();
      const started = Date.now();
      const taker = await client.acceptSession("s", "S");
      assert.ok(Date.now() - started < 2000, "no wait for the 30 s lock to expire");
      const got = await taker.receiveMessages(2, { maxWaitTimeInMs: 1000 });
      assert.deepEqual(got.map((x) => x.body), [1, 2]);
      assert.deepEqual(got.map((x) => x.deliveryCount), [0, 0]);
    } finally {
      await doomed.close().catch(() => undefined);
    }
  }));
