// Sessions through the real SDK: exclusive session locks (by id and next available), per-session
// FIFO including later arrivals, the cannot-be-locked and timeout paths, lock release on close,
// lock expiry, renewal, session state, and MaxDeliveryCount inside a session.
// @needs own servicebus beside
import { test } from "node:test";
import assert from "node:assert/strict";
import { withHarness, seq, sleep, rejectionOf } from "./helpers.ts";

const T = { timeout: 20_000 };
const SESSIONS = { RequiresSession: true, MaxDeliveryCount: 5 };
const NO_RENEW = { maxAutoLockRenewalDurationInMs: 0 };

test("acceptSession(id) gets that session's messages in FIFO order, including later arrivals", T, () =>
  withHarness({ s: SESSIONS }, async ({ client }) => {
    const sender = client.createSender("s");
    await sender.sendMessages([
      { body: "a1", sessionId: "A" },
      { body: "b1", sessionId: "B" },
      { body: "a2", sessionId: "A" },
      { body: "b2", sessionId: "B" },
    ]);
    const receiver = await client.acceptSession("s", "A");
    assert.equal(receiver.sessionId, "A");
    const lockMs = receiver.sessionLockedUntilUtc!.getTime() - Date.now();
    assert.ok(lockMs > 50_000 && lockMs <= 60_000, `session lock lasts LockDuration, got ${lockMs}`);
    const first = await receiver.receiveMessages(10, { maxWaitTimeInMs: 1000 });
    assert.deepEqual(first.map((m) => m.body), ["a1", "a2"]);
    assert.ok(first.every((m) => m.sessionId === "A"));
    assert.ok(seq(first[0]) < seq(first[1]));

    const got: string[] = [];
    const sub = receiver.subscribe(
      {
        processMessage: async (m) => {
          got.push(m.body as string);
        },
        processError: async () => undefined,
      },
      { autoCompleteMessages: true },
    );
    for (const m of first) await receiver.completeMessage(m);
    await sender.sendMessages([{ body: "a3", sessionId: "A" }, { body: "b3", sessionId: "B" }]);
    await sender.sendMessages({ body: "a4", sessionId: "A" });
    for (let i = 0; i < 40 && got.length < 2; i++) await sleep(50);
    await sleep(100); // let the last auto-complete settle on the link (see messages.test.ts)
    await sub.close();
    assert.deepEqual(got, ["a3", "a4"], "later arrivals of the locked session reach its receiver, in order");
  }));

test("acceptNextSession locks distinct sessions with messages, oldest first", T, () =>
  withHarness({ s: SESSIONS }, async ({ client, newClient }) => {
    await client.createSender("s").sendMessages([
      { body: "x", sessionId: "X" },
      { body: "y", sessionId: "Y" },
    ]);
    const r1 = await client.acceptNextSession("s");
    const r2 = await newClient().acceptNextSession("s");
    assert.deepEqual([r1.sessionId, r2.sessionId], ["X", "Y"]);
    const [m] = await r2.receiveMessages(1, { maxWaitTimeInMs: 1000 });
    assert.equal(m.body, "y");
  }));

test("a locked session cannot be accepted by another receiver (SessionCannotBeLocked)", T, () =>
  withHarness({ s: SESSIONS }, async ({ client, newClient }) => {
    await client.createSender("s").sendMessages({ body: 1, sessionId: "S" });
    await client.acceptSession("s", "S");
    const other = newClient({ retryOptions: { maxRetries: 0, timeoutInMs: 5000 } });
    const err = await rejectionOf(other.acceptSession("s", "S"));
    assert.equal(err.code, "SessionCannotBeLocked");
  }));

test("acceptNextSession times out when no session has messages, and wakes for a new one", T, () =>
  withHarness({ s: SESSIONS }, async ({ client, newClient }) => {
    const impatient = newClient({ retryOptions: { maxRetries: 0, timeoutInMs: 1000 } });
    const started = Date.now();
    const err = await rejectionOf(impatient.acceptNextSession("s"));
    assert.equal(err.code, "ServiceTimeout");
    const waited = Date.now() - started;
    assert.ok(waited >= 800 && waited < 4000, `the server held the attach for (nearly) the client timeout, ${waited} ms`);

    const patient = newClient({ retryOptions: { maxRetries: 0, timeoutInMs: 8000 } });
    const pending = patient.acceptNextSession("s");
    await sleep(500);
    await client.createSender("s").sendMessages({ body: "late", sessionId: "L" });
    const receiver = await pending;
    assert.equal(receiver.sessionId, "L");
    assert.ok(Date.now() - started < 6000, "granted when the message arrived, not at the timeout");
  }));

test("closing a session receiver releases the lock at once; unsettled messages return uncounted", T, () =>
  withHarness({ s: SESSIONS }, async ({ client, newClient }) => {
    await client.createSender("s").sendMessages([
      { body: 1, sessionId: "S" },
      { body: 2, sessionId: "S" },
    ]);
    const a = await client.acceptSession("s", "S", NO_RENEW);
    const got = await a.receiveMessages(2, { maxWaitTimeInMs: 1000 });
    assert.equal(got.length, 2);
    await a.close();
    const b = await newClient().acceptSession("s", "S");
    const again = await b.receiveMessages(2, { maxWaitTimeInMs: 1000 });
    assert.deepEqual(again.map((m) => m.body), [1, 2]);
    assert.deepEqual(again.map((m) => m.deliveryCount), [0, 0], "closing the session does not count a delivery");
  }));

test("an expired session lock frees the session, raises delivery counts, and cuts off the holder", T, () =>
  withHarness({ s: { ...SESSIONS, LockDuration: "PT2S" } }, async ({ client, newClient }) => {
    await client.createSender("s").sendMessages([
      { body: 1, sessionId: "S" },
      { body: 2, sessionId: "S" },
    ]);
    const a = await client.acceptSession("s", "S", NO_RENEW);
    const [m] = await a.receiveMessages(1, { maxWaitTimeInMs: 1000 });
    assert.equal(m.lockedUntilUtc!.getTime(), a.sessionLockedUntilUtc!.getTime(), "message locks are the session lock");
    const other = newClient({ retryOptions: { maxRetries: 0, timeoutInMs: 5000 } });
    assert.equal((await rejectionOf(other.acceptSession("s", "S"))).code, "SessionCannotBeLocked");
    await sleep(2300);
    const b = await other.acceptSession("s", "S");
    const again = await b.receiveMessages(2, { maxWaitTimeInMs: 1000 });
    assert.deepEqual(again.map((x) => x.body), [1, 2], "FIFO is kept after the lock moved");
    assert.deepEqual(again.map((x) => x.deliveryCount), [1, 0], "only the delivered message counts an attempt");
    const lost = await rejectionOf(a.completeMessage(m));
    assert.equal(lost.code, "SessionLockLost");
  }));

test("renewSessionLock and the SDK's session auto-renewal keep the session locked", T, () =>
  withHarness({ s: { ...SESSIONS, LockDuration: "PT2S" } }, async ({ client, newClient }) => {
    await client.createSender("s").sendMessages([
      { body: 1, sessionId: "M" },
      { body: 2, sessionId: "A" },
    ]);
    const manual = await client.acceptSession("s", "M", NO_RENEW);
    const auto = await client.acceptSession("s", "A", { maxAutoLockRenewalDurationInMs: 10_000 });
    const first = manual.sessionLockedUntilUtc!.getTime();
    for (let i = 0; i < 3; i++) {
      await sleep(900);
      await manual.renewSessionLock();
    }
    assert.ok(manual.sessionLockedUntilUtc!.getTime() > first + 2000);
    const other = newClient({ retryOptions: { maxRetries: 0, timeoutInMs: 5000 } });
    assert.equal((await rejectionOf(other.acceptSession("s", "M"))).code, "SessionCannotBeLocked");
    assert.equal((await rejectionOf(other.acceptSession("s", "A"))).code, "SessionCannotBeLocked");
    const [m] = await manual.receiveMessages(1, { maxWaitTimeInMs: 1000 });
    await manual.completeMessage(m);
    const [a] = await auto.receiveMessages(1, { maxWaitTimeInMs: 1000 });
    assert.equal(a.deliveryCount, 0);
    await auto.completeMessage(a);
  }));

test("session state: null at first, set and read back, kept for the next holder, cleared with null", T, () =>
  withHarness({ s: SESSIONS }, async ({ client }) => {
    const a = await client.acceptSession("s", "S");
    assert.equal(await a.getSessionState(), null);
    await a.setSessionState({ step: 3, seen: ["x"] });
    assert.deepEqual(await a.getSessionState(), { step: 3, seen: ["x"] });
    await a.close();
    const b = await client.acceptSession("s", "S");
    assert.deepEqual(await b.getSessionState(), { step: 3, seen: ["x"] }, "state outlives the lock and empty sessions");
    await b.setSessionState(Buffer.from("raw"));
    assert.equal(Buffer.from((await b.getSessionState()) as Buffer).toString(), "raw");
    await b.setSessionState(null);
    assert.equal(await b.getSessionState(), null);
  }));

test("session peek, deferral and receive-and-delete stay inside the session", T, () =>
  withHarness({ s: SESSIONS }, async ({ client }) => {
    await client.createSender("s").sendMessages([
      { body: "a1", sessionId: "A" },
      { body: "b1", sessionId: "B" },
      { body: "a2", sessionId: "A" },
      { body: "a3", sessionId: "A" },
    ]);
    const a = await client.acceptSession("s", "A");
    assert.deepEqual((await a.peekMessages(10)).map((m) => m.body), ["a1", "a2", "a3"]);
    const [m] = await a.receiveMessages(1, { maxWaitTimeInMs: 1000 });
    await a.deferMessage(m);
    const [n] = await a.receiveMessages(1, { maxWaitTimeInMs: 1000 });
    assert.equal(n.body, "a2");
    await a.completeMessage(n);
    const [d] = await a.receiveDeferredMessages(m.sequenceNumber!);
    assert.equal(d.body, "a1");
    await a.completeMessage(d);
    await a.close();
    const rd = await client.acceptSession("s", "A", { receiveMode: "receiveAndDelete" });
    const [last] = await rd.receiveMessages(5, { maxWaitTimeInMs: 1000 });
    assert.equal(last.body, "a3");
    assert.deepEqual((await rd.peekMessages(10)).map((x) => x.body), []);
    await rd.close();
    const b = await client.acceptNextSession("s");
    assert.equal(b.sessionId, "B", "an emptied session is not offered as next available");
  }));

test("MaxDeliveryCount inside a session dead-letters the message and the session moves on", T, () =>
  withHarness({ s: { ...SESSIONS, MaxDeliveryCount: 2 } }, async ({ client }) => {
    await client.createSender("s").sendMessages([1, 2, 3].map((n) => ({ body: n, sessionId: "K" })));
    const r = await client.acceptSession("s", "K");
    const bodies: number[] = [];
    for (;;) {
      const [m] = await r.receiveMessages(1, { maxWaitTimeInMs: 500 });
      if (!m) break;
      bodies.push(m.body as number);
      if (m.body === 2) await r.abandonMessage(m);
      else await r.completeMessage(m);
    }
    assert.deepEqual(bodies, [1, 2, 2, 3], "abandoned message is served again at once, then skipped: a gap");
    const [dead] = await client.createReceiver("s", { subQueueType: "deadLetter" }).receiveMessages(1, { maxWaitTimeInMs: 1000 });
    assert.equal(dead.body, 2);
    assert.equal(dead.sessionId, "K");
    assert.equal(dead.deadLetterReason, "MaxDeliveryCountExceeded");
  }));
