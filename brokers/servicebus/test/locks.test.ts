// Message locks: expiry and redelivery with raised delivery counts, lock-lost on late settlement,
// manual and automatic renewal, MaxDeliveryCount dead-lettering, and resubmission from the DLQ.
// @needs own servicebus beside
import { test } from "node:test";
import assert from "node:assert/strict";
import { withHarness, seq, sleep, rejectionOf } from "./helpers.ts";

const T = { timeout: 20_000 };
const SHORT_LOCK = { LockDuration: "PT2S", MaxDeliveryCount: 5 };

test("an expired lock returns the message with deliveryCount raised; the old lock is lost", T, () =>
  withHarness({ q: SHORT_LOCK }, async ({ client }) => {
    await client.createSender("q").sendMessages({ body: "slow" });
    const first = client.createReceiver("q", { maxAutoLockRenewalDurationInMs: 0 });
    const [m1] = await first.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    assert.equal(m1.deliveryCount, 0);
    const lockMs = m1.lockedUntilUtc!.getTime() - Date.now();
    assert.ok(lockMs > 1500 && lockMs <= 2000, `lock follows LockDuration PT2S, got ${lockMs} ms`);

    const second = client.createReceiver("q", { maxAutoLockRenewalDurationInMs: 0 });
    assert.deepEqual(await second.receiveMessages(1, { maxWaitTimeInMs: 1000 }), [], "locked: nobody else gets it");
    await sleep(1300);
    const [m2] = await second.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    assert.equal(seq(m2), seq(m1));
    assert.equal(m2.deliveryCount, 1, "lock expiry counts as a delivery attempt");

    const lost = await rejectionOf(first.completeMessage(m1));
    assert.equal(lost.code, "MessageLockLost");
    const lostRenew = await rejectionOf(first.renewMessageLock(m1));
    assert.equal(lostRenew.code, "MessageLockLost");
    await second.completeMessage(m2);
    assert.deepEqual(await second.peekMessages(1), []);
  }));

test("renewMessageLock extends the lock so the message is not redelivered", T, () =>
  withHarness({ q: SHORT_LOCK }, async ({ client }) => {
    await client.createSender("q").sendMessages({ body: "x" });
    const receiver = client.createReceiver("q", { maxAutoLockRenewalDurationInMs: 0 });
    const [m] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    const before = m.lockedUntilUtc!.getTime();
    const other = client.createReceiver("q", { maxAutoLockRenewalDurationInMs: 0 });
    for (let i = 0; i < 3; i++) {
      await sleep(1000);
      const until = await receiver.renewMessageLock(m);
      assert.ok(until.getTime() > Date.now() + 1500, "renewal grants a full LockDuration from now");
    }
    assert.ok(m.lockedUntilUtc!.getTime() > before + 2500, "the SDK stores the new lockedUntilUtc");
    assert.deepEqual(await other.receiveMessages(1, { maxWaitTimeInMs: 300 }), []);
    await receiver.completeMessage(m);
  }));

test("the SDK's auto lock renewer keeps a slow message locked past LockDuration", T, () =>
  withHarness({ q: SHORT_LOCK }, async ({ client }) => {
    await client.createSender("q").sendMessages({ body: "long job" });
    const receiver = client.createReceiver("q", { maxAutoLockRenewalDurationInMs: 10_000 });
    const [m] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    const other = client.createReceiver("q", { maxAutoLockRenewalDurationInMs: 0 });
    assert.deepEqual(await other.receiveMessages(1, { maxWaitTimeInMs: 3500 }), []);
    await receiver.completeMessage(m); // would throw MessageLockLost if the lock had lapsed
    assert.deepEqual(await other.peekMessages(1), []);
  }));

test("subscribe: a handler slower than the lock sees the message again (redelivery and overlap)", T, () =>
  withHarness({ q: { LockDuration: "PT1S", MaxDeliveryCount: 5 } }, async ({ client }) => {
    await client.createSender("q").sendMessages({ body: "work", messageId: "w" });
    const seen: Array<{ receiver: string; deliveryCount: number }> = [];
    const slow = client.createReceiver("q", { maxAutoLockRenewalDurationInMs: 0 });
    const fast = client.createReceiver("q", { maxAutoLockRenewalDurationInMs: 0 });
    let redelivered!: () => void;
    const done = new Promise<void>((r) => (redelivered = r));
    const subSlow = slow.subscribe(
      {
        processMessage: async (m) => {
          seen.push({ receiver: "slow", deliveryCount: m.deliveryCount! });
          await sleep(1600); // longer than the lock: it expires while we work
        },
        processError: async () => undefined,
      },
      { autoCompleteMessages: false },
    );
    await sleep(200);
    const subFast = fast.subscribe(
      {
        processMessage: async (m) => {
          seen.push({ receiver: "fast", deliveryCount: m.deliveryCount! });
          await fast.completeMessage(m);
          redelivered();
        },
        processError: async () => undefined,
      },
      { autoCompleteMessages: false },
    );
    await done;
    await subSlow.close();
    await subFast.close();
    assert.deepEqual(seen, [
      { receiver: "slow", deliveryCount: 0 },
      { receiver: "fast", deliveryCount: 1 },
    ]);
  }));

test("MaxDeliveryCount: repeated lock expiry dead-letters with MaxDeliveryCountExceeded", T, () =>
  withHarness({ q: { LockDuration: "PT1S", MaxDeliveryCount: 2 } }, async ({ client }) => {
    await client.createSender("q").sendMessages({ body: "poison", messageId: "p" });
    const receiver = client.createReceiver("q", { maxAutoLockRenewalDurationInMs: 0 });
    const [a] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    assert.equal(a.deliveryCount, 0);
    const [b] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 3000 }); // after the first lock expired
    assert.equal(b.deliveryCount, 1);
    await sleep(1200); // second lock expires: 2 attempts = MaxDeliveryCount
    assert.deepEqual(await receiver.peekMessages(1), []);
    const dlq = client.createReceiver("q", { subQueueType: "deadLetter" });
    const [dead] = await dlq.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    assert.equal(dead.messageId, "p");
    assert.equal(dead.deadLetterReason, "MaxDeliveryCountExceeded");
    assert.equal(dead.deadLetterErrorDescription, "Message could not be consumed after 2 delivery attempts.");
    assert.equal(dead.deliveryCount, 2);
    await dlq.completeMessage(dead);
  }));

test("MaxDeliveryCount via abandon, and resubmitting from the DLQ gives a new sequence number", T, () =>
  withHarness({ q: { MaxDeliveryCount: 3 } }, async ({ client }) => {
    const sender = client.createSender("q");
    await sender.sendMessages([{ body: "first" }, { body: "second" }]);
    const receiver = client.createReceiver("q");
    const counts: number[] = [];
    let firstSeq = -1;
    for (let i = 0; i < 3; i++) {
      const [m] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
      assert.equal(m.body, "first");
      firstSeq = seq(m);
      counts.push(m.deliveryCount!);
      await receiver.abandonMessage(m);
    }
    assert.deepEqual(counts, [0, 1, 2]);
    const [next] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    assert.equal(next.body, "second", "after the third failure the message left the queue");
    await receiver.completeMessage(next);

    const dlq = client.createReceiver("q", { subQueueType: "deadLetter" });
    const [dead] = await dlq.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    assert.equal(dead.deadLetterReason, "MaxDeliveryCountExceeded");
    await sender.sendMessages({ body: dead.body, messageId: dead.messageId });
    await dlq.completeMessage(dead);
    const [again] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    assert.equal(again.body, "first");
    assert.ok(seq(again) > seq(next), `resubmitted ${seq(again)} sorts after ${seq(next)}, not at ${firstSeq}`);
    assert.equal(again.deliveryCount, 0);
  }));
