// A receiver process killed with SIGKILL while it holds unsettled messages, directly and through
// a real Toxiproxy: whatever ends its locks (the connection drop, the AMQP idle timeout behind a
// black hole, or lock expiry), its messages come back, before later ones, in order, with the
// delivery count the service gives (session released by a closed connection: unchanged, as when
// a session receiver closes; message lock or session lock expiry: raised by one).
// @needs own servicebus beside
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ServiceBusClient, ServiceBusReceivedMessage, ServiceBusReceiver } from "@azure/service-bus";
import { connectionStringFor } from "../emulator/index.ts";
import { startToxiproxy, type ToxiproxyServer } from "../../../harness/net/toxiproxy.ts";
import { freePort } from "../../../harness/runtime/ports.ts";
import { rejectionOf, sleep, withHarness, type Harness } from "./helpers.ts";

const T = { timeout: 30_000 };
const CHILD = fileURLToPath(new URL("./fixtures/receiver-process.ts", import.meta.url));
const TSX = import.meta.resolve("tsx");
const NO_RENEW = { maxAutoLockRenewalDurationInMs: 0 };

let toxiproxy: ToxiproxyServer;
before(async () => {
  toxiproxy = await startToxiproxy({ workDir: mkdtempSync(join(tmpdir(), "convoy-sb-kill-")) });
});
after(async () => toxiproxy?.stop());

/** A receiver process holding `count` unsettled messages (of `sessionId`, when given). */
async function heldBy(connectionString: string, queue: string, count: number, sessionId?: string): Promise<{ child: ChildProcess; held: unknown[] }> {
  const child = spawn(process.execPath, ["--import", TSX, CHILD, JSON.stringify({ connectionString, queue, sessionId, count })], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const held = await new Promise<unknown[]>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d) => {
      out += d;
      if (out.includes("\n")) resolve((JSON.parse(out.split("\n")[0]) as { held: unknown[] }).held);
    });
    child.on("exit", (code) => reject(new Error(`the receiver process exited (${code}) before holding its messages`)));
    setTimeout(() => reject(new Error("the receiver process did not get its messages")), 15_000).unref();
  });
  return { child, held };
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
}

/** A proxy in front of the emulator on the shared Toxiproxy; its connection string. */
async function proxied(h: Harness, name: string): Promise<string> {
  const port = await freePort();
  await toxiproxy.api.createProxy(name, port, `127.0.0.1:${h.emulator.port}`);
  return connectionStringFor("127.0.0.1", port);
}

async function sendSession(client: ServiceBusClient, queue: string, sessionId: string, bodies: number[]): Promise<void> {
  await client.createSender(queue).sendMessages(bodies.map((body) => ({ body, sessionId })));
}

/** Accepts the session as soon as it is free; throws if it is still locked after `withinMs`. */
async function acceptWhenFree(client: ServiceBusClient, queue: string, sessionId: string, withinMs: number): Promise<ServiceBusReceiver> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      return await client.acceptSession(queue, sessionId, NO_RENEW);
    } catch (err) {
      if ((err as { code?: string }).code !== "SessionCannotBeLocked" || Date.now() > deadline) throw err;
      await sleep(50);
    }
  }
}

async function receiveAll(receiver: ServiceBusReceiver, n: number): Promise<ServiceBusReceivedMessage[]> {
  const got: ServiceBusReceivedMessage[] = [];
  const deadline = Date.now() + 10_000;
  while (got.length < n && Date.now() < deadline) got.push(...(await receiver.receiveMessages(n - got.length, { maxWaitTimeInMs: 500 })));
  for (const m of got) await receiver.completeMessage(m);
  return got;
}

const bodies = (ms: ServiceBusReceivedMessage[]) => ms.map((m) => m.body);
const counts = (ms: ServiceBusReceivedMessage[]) => ms.map((m) => m.deliveryCount);

test("sessions: a killed receiver's unsettled messages come first to the next holder, in order, delivery count unchanged", T, () =>
  withHarness({ s: { RequiresSession: true, LockDuration: "PT30S" } }, async ({ emulator, client }) => {
    await sendSession(client, "s", "S", [1, 2, 3, 4, 5, 6]);
    const { child, held } = await heldBy(emulator.connectionString, "s", 3, "S");
    assert.deepEqual(held, [1, 2, 3]);
    const refused = await rejectionOf(client.acceptSession("s", "S", NO_RENEW));
    assert.equal(refused.code, "SessionCannotBeLocked", "the live process holds the session");
    await kill(child);
    const taker = await acceptWhenFree(client, "s", "S", 5_000);
    const got = await receiveAll(taker, 6);
    assert.deepEqual(bodies(got), [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(counts(got), [0, 0, 0, 0, 0, 0], "released by the closed connection, not by lock expiry");
  }));

test("no sessions: a killed receiver's messages stay locked until the lock expires, then come back before later ones with delivery count 1", T, () =>
  withHarness({ q: { LockDuration: "PT2S", MaxDeliveryCount: 5 } }, async ({ emulator, client }) => {
    await client.createSender("q").sendMessages([1, 2, 3, 4, 5, 6].map((body) => ({ body })));
    const { child, held } = await heldBy(emulator.connectionString, "q", 3);
    assert.deepEqual(held, [1, 2, 3]);
    const lockedAt = Date.now();
    await kill(child);
    const survivor = client.createReceiver("q", NO_RENEW);
    const [next] = await survivor.receiveMessages(1, { maxWaitTimeInMs: 1000 });
    assert.equal(next.body, 4, "the dead receiver's locks outlive its connection");
    await survivor.completeMessage(next);
    await sleep(lockedAt + 2_200 - Date.now());
    const rest = await receiveAll(survivor, 5);
    assert.deepEqual(bodies(rest), [1, 2, 3, 5, 6], "returned messages come before later ones");
    assert.deepEqual(counts(rest), [1, 1, 1, 0, 0]);
    assert.equal(emulator.queueStats("q")!.deadLetter, 0);
  }));

test("through Toxiproxy: a killed receiver's connection is seen dropped at once, well before its session lock expires", T, () =>
  withHarness({ s: { RequiresSession: true, LockDuration: "PT30S" } }, async ({ emulator, client }) => {
    await sendSession(client, "s", "S", [1, 2, 3, 4]);
    const { child, held } = await heldBy(await proxied({ emulator } as Harness, "sb-kill"), "s", 2, "S");
    assert.deepEqual(held, [1, 2]);
    await kill(child);
    const killedAt = Date.now();
    const taker = await acceptWhenFree(client, "s", "S", 10_000);
    const freeAfterMs = Date.now() - killedAt;
    const got = await receiveAll(taker, 4);
    assert.deepEqual(bodies(got), [1, 2, 3, 4]);
    assert.deepEqual(counts(got), [0, 0, 0, 0], "the drop released the session (a lock expiry would count a delivery)");
    process.stdout.write(`# session free ${freeAfterMs} ms after the kill (through Toxiproxy)\n`);
  }));

/** Cuts the proxy both ways without closing anything, as a dead network path would. */
async function blackHole(proxy: string): Promise<void> {
  for (const stream of ["upstream", "downstream"] as const) {
    await toxiproxy.api.addToxic(proxy, { type: "timeout", name: `hole-${stream}`, stream, attributes: { timeout: 0 } });
  }
}

test("black hole: a receiver cut off behind a Toxiproxy timeout toxic loses its session to the emulator's idle timeout, messages in order, count unchanged", T, () =>
  withHarness(
    { s: { RequiresSession: true, LockDuration: "PT30S" } },
    async ({ emulator, client }) => {
      await sendSession(client, "s", "S", [1, 2, 3, 4]);
      const { child, held } = await heldBy(await proxied({ emulator } as Harness, "sb-hole"), "s", 2, "S");
      try {
        assert.deepEqual(held, [1, 2]);
        await blackHole("sb-hole");
        const cutAt = Date.now();
        await sleep(500);
        assert.equal((await rejectionOf(client.acceptSession("s", "S", NO_RENEW))).code, "SessionCannotBeLocked", "not yet seen gone");
        const taker = await acceptWhenFree(client, "s", "S", 10_000);
        const freeAfterMs = Date.now() - cutAt;
        const got = await receiveAll(taker, 4);
        assert.deepEqual(bodies(got), [1, 2, 3, 4]);
        assert.deepEqual(counts(got), [0, 0, 0, 0], "the connection ended (the 30 s lock did not expire)");
        process.stdout.write(`# session free ${freeAfterMs} ms after the black hole (idle timeout 1 s)\n`);
      } finally {
        await kill(child);
      }
    },
    { idleTimeoutMs: 1_000 },
  ));

test("black hole, lock shorter than the idle timeout: session lock expiry frees the session, messages in order, held ones counted", T, () =>
  withHarness({ s: { RequiresSession: true, LockDuration: "PT2S", MaxDeliveryCount: 5 } }, async ({ emulator, client }) => {
    await sendSession(client, "s", "S", [1, 2, 3, 4]);
    const { child, held } = await heldBy(await proxied({ emulator } as Harness, "sb-expire"), "s", 2, "S");
    try {
      assert.deepEqual(held, [1, 2]);
      await blackHole("sb-expire");
      const taker = await acceptWhenFree(client, "s", "S", 5_000);
      const got = await receiveAll(taker, 4);
      assert.deepEqual(bodies(got), [1, 2, 3, 4]);
      assert.deepEqual(counts(got), [1, 1, 0, 0], "the two held under the expired session lock count a delivery");
    } finally {
      await kill(child);
    }
  }));
