// Sending, receiving in both modes, every settlement, peek, deferral, dead-lettering and the
// queue-level features (duplicate detection, TTL, scheduling), all through the real SDK.
// @needs own servicebus beside
import { test } from "node:test";
import assert from "node:assert/strict";
import { withHarness, seq, sleep, rejectionOf } from "./helpers.ts";

const T = { timeout: 20_000 };

test("send single and batch; peek-lock receive returns them in order with broker properties", T, () =>
  withHarness({ q: {} }, async ({ client }) => {
    const sender = client.createSender("q");
    await sender.sendMessages({
      body: { n: 1 },
      messageId: "m-1",
      subject: "subj",
      contentType: "application/json",
      correlationId: "corr",
      applicationProperties: { key: "k1", count: 7, ratio: 0.5, flag: true },
    });
    const batch = await sender.createMessageBatch();
    assert.ok(batch.maxSizeInBytes > 0);
    for (const n of [2, 3, 4]) assert.ok(batch.tryAddMessage({ body: { n } }));
    await sender.sendMessages(batch);
    await sender.sendMessages([{ body: { n: 5 } }, { body: { n: 6 } }]);

    const receiver = client.createReceiver("q");
    const got = await receiver.receiveMessages(6, { maxWaitTimeInMs: 2000 });
    assert.deepEqual(
      got.map((m) => (m.body as { n: number }).n),
      [1, 2, 3, 4, 5, 6],
    );
    assert.deepEqual(got.map(seq), [1, 2, 3, 4, 5, 6], "sequence numbers are assigned in send order from 1");
    const first = got[0];
    assert.equal(first.messageId, "m-1");
    assert.equal(first.subject, "subj");
    assert.equal(first.contentType, "application/json");
    assert.equal(first.correlationId, "corr");
    assert.deepEqual(first.applicationProperties, { key: "k1", count: 7, ratio: 0.5, flag: true });
    assert.equal(first.deliveryCount, 0);
    assert.ok(first.lockToken, "peek-lock messages carry a lock token");
    assert.ok(first.enqueuedTimeUtc instanceof Date);
    const lockedFor = (first.lockedUntilUtc as Date).getTime() - Date.now();
    assert.ok(lockedFor > 50_000 && lockedFor <= 60_000, `default lock is PT1M, got ${lockedFor} ms`);
    assert.ok(got[1].messageId, "the broker stamps a MessageId when the sender set none");
    for (const m of got) await receiver.completeMessage(m);
    assert.deepEqual(await receiver.peekMessages(10), [], "completed messages are gone");
  }));

test("competing receivers on a queue without sessions share its messages", T, () =>
  withHarness({ q: {} }, async ({ client, newClient }) => {
    const byReceiver: number[][] = [[], []];
    let handled = 0;
    const receivers = [client.createReceiver("q"), newClient().createReceiver("q")];
    const subs = receivers.map((r, i) =>
      r.subscribe(
        {
          processMessage: async (m) => {
            byReceiver[i].push(m.body as number);
            await sleep(20);
            handled++;
          },
          processError: async () => undefined,
        },
        { maxConcurrentCalls: 2 },
      ),
    );
    await sleep(500); // both links attached and holding credit
    await client.createSender("q").sendMessages(Array.from({ length: 20 }, (_, n) => ({ body: n })));
    for (let i = 0; i < 100 && handled < 20; i++) await sleep(50);
    // Close only once every handler has returned and its message is settled: the SDK settles a
    // message whose link closed meanwhile through a $management link, and one opened while the
    // client closes keeps a 45-minute token-renewal timer that holds the process open.
    await sleep(100);
    await Promise.all(subs.map((s) => s.close()));
    assert.deepEqual([...byReceiver[0], ...byReceiver[1]].sort((a, b) => a - b), Array.from({ length: 20 }, (_, n) => n));
    assert.ok(byReceiver[0].length >= 5 && byReceiver[1].length >= 5, `both got work: ${byReceiver.map((b) => b.length)}`);
  }));

test("receive-and-delete removes messages on delivery and gives no lock token", T, () =>
  withHarness({ q: {} }, async ({ client }) => {
    await client.createSender("q").sendMessages([{ body: "a" }, { body: "b" }]);
    const receiver = client.createReceiver("q", { receiveMode: "receiveAndDelete" });
    const got = await receiver.receiveMessages(2, { maxWaitTimeInMs: 2000 });
    assert.deepEqual(got.map((m) => m.body), ["a", "b"]);
    assert.equal(got[0].lockToken, undefined);
    assert.deepEqual(await client.createReceiver("q").peekMessages(10), []);
  }));

test("abandon makes the message available again with its delivery count raised", T, () =>
  withHarness({ q: { MaxDeliveryCount: 5 } }, async ({ client }) => {
    await client.createSender("q").sendMessages({ body: "x" });
    const receiver = client.createReceiver("q");
    const [m1] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    assert.equal(m1.deliveryCount, 0);
    await receiver.abandonMessage(m1, { note: "tried" });
    const [m2] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    assert.equal(seq(m2), seq(m1));
    assert.equal(m2.deliveryCount, 1);
    assert.notEqual(m2.lockToken, m1.lockToken, "every delivery has its own lock token");
    assert.equal(m2.applicationProperties?.note, "tried", "abandon's propertiesToModify are applied");
    await receiver.completeMessage(m2);
  }));

test("defer hides a message until it is received by sequence number; deferred messages settle", T, () =>
  withHarness({ q: {} }, async ({ client }) => {
    await client.createSender("q").sendMessages([{ body: "deferred" }, { body: "next" }]);
    const receiver = client.createReceiver("q");
    const [m] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    await receiver.deferMessage(m);
    const [n] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    assert.equal(n.body, "next", "the deferred message is skipped");
    await receiver.completeMessage(n);
    assert.deepEqual(await receiver.receiveMessages(1, { maxWaitTimeInMs: 300 }), []);

    const [peeked] = await client.createReceiver("q").peekMessages(1);
    assert.equal(peeked.state, "deferred");

    const [d] = await receiver.receiveDeferredMessages(m.sequenceNumber!);
    assert.equal(d.body, "deferred");
    assert.ok(d.lockToken);
    await receiver.abandonMessage(d); // back to deferred, one more failed delivery
    const [d2] = await receiver.receiveDeferredMessages(m.sequenceNumber!);
    assert.equal(d2.deliveryCount, 1);
    await receiver.completeMessage(d2);
    const err = await rejectionOf(receiver.receiveDeferredMessages(m.sequenceNumber!));
    assert.equal(err.code, "MessageNotFound");
  }));

test("dead-letter moves the message to the DLQ with reason and description; DLQ is receivable", T, () =>
  withHarness({ q: {} }, async ({ client }) => {
    await client.createSender("q").sendMessages({ body: "poison", messageId: "p1" });
    const receiver = client.createReceiver("q");
    const [m] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    await receiver.deadLetterMessage(m, { deadLetterReason: "Bad", deadLetterErrorDescription: "could not parse" });
    assert.deepEqual(await receiver.receiveMessages(1, { maxWaitTimeInMs: 300 }), []);

    const dlq = client.createReceiver("q", { subQueueType: "deadLetter" });
    const [peeked] = await dlq.peekMessages(1);
    assert.equal(peeked.messageId, "p1");
    const [dl] = await dlq.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    assert.equal(dl.body, "poison");
    assert.equal(dl.deadLetterReason, "Bad");
    assert.equal(dl.deadLetterErrorDescription, "could not parse");
    assert.equal(seq(dl), seq(m), "a dead-lettered message keeps its sequence number");
    await dlq.completeMessage(dl);
    assert.deepEqual(await dlq.peekMessages(1), []);
  }));

test("peek browses from the start without locking, then continues where it stopped", T, () =>
  withHarness({ q: {} }, async ({ client }) => {
    await client.createSender("q").sendMessages([1, 2, 3, 4, 5].map((n) => ({ body: n })));
    const browser = client.createReceiver("q");
    const first = await browser.peekMessages(2);
    assert.deepEqual(first.map((m) => m.body), [1, 2]);
    assert.equal(first[0].lockToken, undefined);
    const rest = await browser.peekMessages(10);
    assert.deepEqual(rest.map((m) => m.body), [3, 4, 5]);
    const from4 = await browser.peekMessages(10, { fromSequenceNumber: rest[1].sequenceNumber });
    assert.deepEqual(from4.map((m) => m.body), [4, 5]);
    // Peeking locks nothing: a receiver still gets message 1 first.
    const [m] = await client.createReceiver("q").receiveMessages(1, { maxWaitTimeInMs: 2000 });
    assert.equal(m.body, 1);
  }));

test("settling after the receiver link closed goes through $management and still works", T, () =>
  withHarness({ q: {} }, async ({ client }) => {
    await client.createSender("q").sendMessages([{ body: "a" }, { body: "b" }]);
    const receiver = client.createReceiver("q");
    const [a, b] = await receiver.receiveMessages(2, { maxWaitTimeInMs: 2000 });
    await receiver.close();
    const other = client.createReceiver("q");
    await other.completeMessage(a); // update-disposition by lock token
    await other.deadLetterMessage(b, { deadLetterReason: "late", deadLetterErrorDescription: "settled via $management" });
    assert.deepEqual(await other.peekMessages(5), []);
    const [dl] = await client.createReceiver("q", { subQueueType: "deadLetter" }).peekMessages(1);
    assert.equal(dl.deadLetterReason, "late");
    assert.equal(dl.deadLetterErrorDescription, "settled via $management");
  }));

test("duplicate detection drops a repeated MessageId inside the window only", T, () =>
  withHarness(
    {
      dd: { RequiresDuplicateDetection: true, DuplicateDetectionHistoryTimeWindow: "PT1S" },
      plain: {},
    },
    async ({ client }) => {
      const dd = client.createSender("dd");
      await dd.sendMessages({ body: 1, messageId: "same" });
      await dd.sendMessages({ body: 2, messageId: "same" }); // accepted by the service, then dropped
      await dd.sendMessages({ body: 3, messageId: "other" });
      await sleep(1200);
      await dd.sendMessages({ body: 4, messageId: "same" }); // window passed
      const peeked = await client.createReceiver("dd").peekMessages(10);
      assert.deepEqual(peeked.map((m) => m.body), [1, 3, 4]);
      const plain = client.createSender("plain");
      await plain.sendMessages({ body: 1, messageId: "same" });
      await plain.sendMessages({ body: 2, messageId: "same" });
      assert.equal((await client.createReceiver("plain").peekMessages(10)).length, 2);
    },
  ));

test("TTL: expired messages are dead-lettered with TTLExpiredException, or dropped", T, () =>
  withHarness(
    {
      dl: { DefaultMessageTimeToLive: "PT1S", DeadLetteringOnMessageExpiration: true },
      drop: { DefaultMessageTimeToLive: "PT1S" },
    },
    async ({ client }) => {
      await client.createSender("dl").sendMessages([{ body: "old" }, { body: "short", timeToLive: 300 }]);
      await client.createSender("drop").sendMessages({ body: "old" });
      const [live] = await client.createReceiver("dl").peekMessages(1);
      assert.equal(live.expiresAtUtc!.getTime() - live.enqueuedTimeUtc!.getTime(), 1000);
      await sleep(1400);
      assert.deepEqual(await client.createReceiver("dl").receiveMessages(1, { maxWaitTimeInMs: 300 }), []);
      const dead = await client.createReceiver("dl", { subQueueType: "deadLetter" }).receiveMessages(2, { maxWaitTimeInMs: 2000 });
      assert.deepEqual(dead.map((m) => m.body).sort(), ["old", "short"]);
      assert.ok(dead.every((m) => m.deadLetterReason === "TTLExpiredException"));
      assert.deepEqual(await client.createReceiver("drop").peekMessages(5), []);
      assert.deepEqual(await client.createReceiver("drop", { subQueueType: "deadLetter" }).peekMessages(5), []);
    },
  ));

test("scheduled messages appear at their time; cancelled ones never do", T, () =>
  withHarness({ q: {} }, async ({ client }) => {
    const sender = client.createSender("q");
    const at = new Date(Date.now() + 800);
    const [keep, cancel] = await sender.scheduleMessages([{ body: "later" }, { body: "never" }], at);
    assert.ok(cancel.toNumber() > keep.toNumber());
    await sender.cancelScheduledMessages(cancel);
    const [peeked] = await client.createReceiver("q").peekMessages(5);
    assert.equal(peeked.state, "scheduled");
    const receiver = client.createReceiver("q");
    assert.deepEqual(await receiver.receiveMessages(1, { maxWaitTimeInMs: 300 }), []);
    const got = await receiver.receiveMessages(2, { maxWaitTimeInMs: 2000 });
    assert.deepEqual(got.map((m) => m.body), ["later"]);
    assert.ok(Date.now() >= at.getTime());
  }));

test("unknown queues and sessionless sends to a session queue fail the way the service fails", T, () =>
  withHarness({ s: { RequiresSession: true } }, async ({ client }) => {
    const missing = await rejectionOf(client.createSender("nope").sendMessages({ body: 1 }));
    assert.equal(missing.code, "MessagingEntityNotFound");
    // amqp:not-allowed; the SDK reports it as a GeneralError carrying the service's text.
    const noSession = await rejectionOf(client.createSender("s").sendMessages({ body: 1 }));
    assert.match(noSession.message, /SessionId was not set/);
    const plainReceiver = await rejectionOf(client.createReceiver("s").receiveMessages(1, { maxWaitTimeInMs: 500 }));
    assert.match(plainReceiver.message, /requires sessions to create a non-sessionful message receiver/);
  }));
