// Configuration and operation of the emulator process: Config.json in Microsoft's shape, ISO-8601
// durations, the CLI's ready line, and runtime queue management (programmatic and HTTP).
// @needs own servicebus beside
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { ServiceBusClient } from "@azure/service-bus";
import { parseConfig, startEmulator } from "../emulator/index.ts";
import { formatDuration, parseDuration } from "../emulator/duration.ts";
import { rejectionOf, withHarness } from "./helpers.ts";

const T = { timeout: 20_000 };

// The queue part of Microsoft's sample Config.json for its emulator.
const MICROSOFT_CONFIG = {
  UserConfig: {
    Namespaces: [
      {
        Name: "sbemulatorns",
        Queues: [
          {
            Name: "queue.1",
            Properties: {
              DeadLetteringOnMessageExpiration: false,
              DefaultMessageTimeToLive: "PT1H",
              DuplicateDetectionHistoryTimeWindow: "PT20S",
              ForwardDeadLetteredMessagesTo: "",
              ForwardTo: "",
              LockDuration: "PT1M",
              MaxDeliveryCount: 3,
              RequiresDuplicateDetection: false,
              RequiresSession: false,
            },
          },
          { Name: "orders", Properties: { RequiresSession: true, LockDuration: "PT5S", MaxDeliveryCount: 10 } },
        ],
        Topics: [{ Name: "topic.1" }],
      },
    ],
    Logging: { Type: "File" },
  },
};

test("ISO-8601 durations parse and format", () => {
  assert.equal(parseDuration("PT1M"), 60_000);
  assert.equal(parseDuration("PT2S"), 2000);
  assert.equal(parseDuration("PT0.5S"), 500);
  assert.equal(parseDuration("P1DT1H"), 90_000_000);
  assert.throws(() => parseDuration("1 minute"));
  assert.throws(() => parseDuration("P1M")); // months have no fixed length
  assert.equal(formatDuration(90_000), "PT1M30S");
  assert.equal(formatDuration(parseDuration("P14D")), "P14D");
});

test("Microsoft's Config.json shape is accepted, with its defaults and unsupported parts reported", () => {
  const config = parseConfig(MICROSOFT_CONFIG);
  assert.equal(config.namespace, "sbemulatorns");
  assert.deepEqual(
    config.queues.map((q) => [q.name, q.properties.requiresSession, q.properties.lockDurationMs, q.properties.maxDeliveryCount]),
    [
      ["queue.1", false, 60_000, 3],
      ["orders", true, 5000, 10],
    ],
  );
  assert.equal(config.queues[1].properties.defaultMessageTtlMs, 3_600_000, "DefaultMessageTimeToLive defaults to PT1H");
  assert.deepEqual(config.ignored, ["topic topic.1"]);
  assert.throws(() => parseConfig({ UserConfig: { Namespaces: [{ Queues: [{ Name: "q", Properties: { MaxDeliveryCount: 0 } }] }] } }));
  assert.throws(() => parseConfig({ UserConfig: { Namespaces: [{ Queues: [{ Name: "q" }, { Name: "Q" }] }] } }));
});

test("queues created and deleted at runtime through the API; deleted queues are not found", T, () =>
  withHarness({}, async ({ emulator, client }) => {
    emulator.createQueue("run-42", { RequiresSession: true, LockDuration: "PT3S" });
    assert.throws(() => emulator.createQueue("RUN-42"), /already exists/, "names are case-insensitive");
    await client.createSender("run-42").sendMessages({ body: 1, sessionId: "k" });
    assert.deepEqual(emulator.queueStats("run-42"), {
      name: "run-42",
      active: 1,
      locked: 0,
      deferred: 0,
      scheduled: 0,
      deadLetter: 0,
      sessions: 1,
    });
    const r = await client.acceptSession("run-42", "k");
    const [m] = await r.receiveMessages(1, { maxWaitTimeInMs: 1000 });
    assert.ok(m.lockedUntilUtc!.getTime() - Date.now() <= 3000);
    assert.equal(emulator.queueStats("run-42")?.locked, 1);
    assert.equal(emulator.deleteQueue("run-42"), true);
    assert.equal(emulator.deleteQueue("run-42"), false);
    const err = await rejectionOf(client.createSender("run-42").sendMessages({ body: 2, sessionId: "k" }));
    assert.equal(err.code, "MessagingEntityNotFound");
  }));

test("CLI: --config and --admin-port, a JSON ready line, HTTP queue management, clean SIGTERM", T, async () => {
  const dir = mkdtempSync(join(tmpdir(), "sbemu-"));
  const configPath = join(dir, "Config.json");
  writeFileSync(configPath, JSON.stringify(MICROSOFT_CONFIG));
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "brokers/servicebus/emulator/main.ts", "--port", "0", "--admin-port", "0", "--config", configPath],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once("line", resolve);
      child.once("exit", () => reject(new Error(`emulator exited: ${stderr}`)));
    });
    const ready = JSON.parse(line) as { event: string; port: number; adminPort: number; queues: string[]; connectionString: string };
    assert.equal(ready.event, "ready");
    assert.deepEqual(ready.queues, ["queue.1", "orders"]);
    assert.match(stderr, /topic topic\.1 is not supported/);

    const admin = `http://127.0.0.1:${ready.adminPort}`;
    const put = await fetch(`${admin}/queues/run-7`, {
      method: "PUT",
      body: JSON.stringify({ Properties: { MaxDeliveryCount: 2, LockDuration: "PT10S" } }),
    });
    assert.equal(put.status, 201);
    const info = (await put.json()) as { properties: { MaxDeliveryCount: number; LockDuration: string } };
    assert.deepEqual([info.properties.MaxDeliveryCount, info.properties.LockDuration], [2, "PT10S"]);
    assert.equal((await fetch(`${admin}/queues/run-7`, { method: "PUT", body: "{}" })).status, 409);

    const client = new ServiceBusClient(ready.connectionString, { retryOptions: { maxRetries: 0, timeoutInMs: 5000 } });
    try {
      await client.createSender("run-7").sendMessages({ body: "via cli" });
      const [m] = await client.createReceiver("run-7").receiveMessages(1, { maxWaitTimeInMs: 1000 });
      assert.equal(m.body, "via cli");
      const listed = (await (await fetch(`${admin}/queues`)).json()) as Array<{ name: string; counts: { locked: number } }>;
      assert.deepEqual(listed.map((q) => q.name), ["queue.1", "orders", "run-7"]);
      assert.equal(listed[2].counts.locked, 1);
      assert.equal((await fetch(`${admin}/queues/run-7`, { method: "DELETE" })).status, 204);
      assert.equal((await fetch(`${admin}/queues/run-7`)).status, 404);
    } finally {
      await client.close();
    }
    child.kill("SIGTERM");
    assert.equal(await exited, 0);
  } finally {
    child.kill("SIGKILL");
  }
});

test("startEmulator takes a parsed config object and reports a port already in use", T, async () => {
  const a = await startEmulator({ port: 0, config: MICROSOFT_CONFIG });
  try {
    assert.deepEqual(a.queueNames(), ["queue.1", "orders"]);
    await assert.rejects(startEmulator({ port: a.port }), /EADDRINUSE/);
  } finally {
    await a.close();
  }
});
