/** What the Pub/Sub module generates without a broker: settings, names, subscription options, services, build. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pubsub from '../index.ts';
import { subscriptionOptions } from '../admin.ts';
import { toSendFailure } from '../client.ts';
import { namesOf } from '../connection.ts';
import { CONTAINER_PORTS, EMULATOR_IMAGE, EMULATOR_PORT, PROXY_LISTEN_PORT } from '../containers.ts';
import { externalEndpoint } from '../external.ts';
import { SOURCE_DIR, sourceHash } from '../local.ts';
import { resolveSettings } from '../settings.ts';
import { InputError } from '../../../harness/errors.ts';
import { OUTSTANDING_PER_KEY_LABEL } from '../emulator/labels.ts';

test('defaults: ordering on, 10 s deadline, no dead letters, one stream, immediate resume by the client', () => {
  const s = resolveSettings({ kind: 'pubsub' });
  assert.equal(s.projectId, 'convoy-local');
  assert.equal(s.messageOrdering, true);
  assert.equal(s.ackDeadlineSeconds, 10);
  assert.deepEqual(s.deadLetter, { enabled: false, maxDeliveryAttempts: 5 });
  assert.deepEqual(s.subscriber, { maxExtensionSeconds: 3600, streams: 1, ackBatchMs: 10 });
  assert.deepEqual(s.publisher, { batchMaxMessages: 100, batchMaxMs: 10, resume: 'immediate', resumeDelayMs: 1000, pausedKeys: 'client', timeoutMs: 60_000 });
  assert.deepEqual(resolveSettings(s), s);
  assert.equal(resolveSettings({ kind: 'pubsub', deadLetter: { maxDeliveryAttempts: 7 } }).deadLetter.enabled, true);
});

test('bad settings fail with one line per problem', () => {
  const bad = (s: Record<string, unknown>, re: RegExp) =>
    assert.throws(() => resolveSettings({ kind: 'pubsub', ...s }), (e: unknown) => e instanceof InputError && e.detail.some((l) => re.test(l)));
  bad({ ordering: true }, /unknown field "ordering"/);
  bad({ deadLetter: { maxDeliveryAttempts: 3 } }, /maxDeliveryAttempts/);
  bad({ publisher: { resume: 'later' } }, /never, immediate, delayed/);
  bad({ ackDeadlineSeconds: 601 }, /ackDeadlineSeconds/);
  bad({ emulatorHost: 'http://x' }, /emulatorHost/);
});

test('names and the subscription: ordering, deadline and the dead-letter policy', () => {
  const s = resolveSettings({ kind: 'pubsub', messageOrdering: false, ackDeadlineSeconds: 20, deadLetter: { maxDeliveryAttempts: 6 } });
  const n = namesOf(s, { runId: 'r', prefix: 'convoy-r' });
  assert.deepEqual(n, { topic: 'convoy-r-topic', subscription: 'convoy-r-sub', deadLetterTopic: 'convoy-r-dead-letter', deadLetterSubscription: 'convoy-r-dead-letter-sub' });
  assert.deepEqual(subscriptionOptions(s, 'p', n), {
    enableMessageOrdering: false,
    ackDeadlineSeconds: 20,
    deadLetterPolicy: { deadLetterTopic: 'projects/p/topics/convoy-r-dead-letter', maxDeliveryAttempts: 6 },
  });
});

test('publish failures: definite when refused or when the key is paused, else unknown', () => {
  assert.equal(toSendFailure(Object.assign(new Error('9 FAILED_PRECONDITION: x'), { code: 9 })).definite, true);
  assert.equal(toSendFailure(Object.assign(new Error('7 PERMISSION_DENIED: x'), { code: 7 })).definite, true);
  assert.equal(toSendFailure(Object.assign(new Error('14 UNAVAILABLE: x'), { code: 14 })).definite, false);
  assert.equal(toSendFailure(Object.assign(new Error('4 DEADLINE_EXCEEDED: x'), { code: 4 })).definite, false);
  assert.equal(toSendFailure(new Error('Unable to publish for key "k". Reason: boom')).definite, true);
});

test('containers: the gcloud emulator image and a toxiproxy in front of its gRPC port', () => {
  const services = pubsub.containerServices({ kind: 'pubsub', projectId: 'my-proj-1' });
  assert.deepEqual(
    services.map((s) => [s.name, s.image]),
    [
      ['pubsub-emulator', EMULATOR_IMAGE],
      ['pubsub-toxiproxy', 'ghcr.io/shopify/toxiproxy:2.12.0'],
    ],
  );
  assert.equal(EMULATOR_IMAGE, 'gcr.io/google.com/cloudsdktool/google-cloud-cli:emulators');
  assert.deepEqual(services[0]!.command, ['gcloud', 'beta', 'emulators', 'pubsub', 'start', `--host-port=0.0.0.0:${EMULATOR_PORT}`, '--project=my-proj-1']);
  assert.deepEqual(services[1]!.ports, [
    { container: 8474, host: CONTAINER_PORTS.toxiproxyApi },
    { container: PROXY_LISTEN_PORT, host: CONTAINER_PORTS.grpcViaProxy },
  ]);
});

test('external: a project is required; an emulator host is passed through', () => {
  const s = resolveSettings({ kind: 'pubsub' });
  const saved = process.env.GOOGLE_CLOUD_PROJECT;
  delete process.env.GOOGLE_CLOUD_PROJECT;
  try {
    assert.throws(() => externalEndpoint({}, s), /needs a project/);
  } finally {
    if (saved !== undefined) process.env.GOOGLE_CLOUD_PROJECT = saved;
  }
  assert.deepEqual(externalEndpoint({ projectId: 'prod-1' }, s), { projectId: 'prod-1' });
  assert.deepEqual(externalEndpoint({ projectId: 'p', emulatorHost: 'emu:8085' }, s), { projectId: 'p', emulatorHost: 'emu:8085', adminHost: 'emu:8085' });
});

test('the Go program: sources committed with go.sum, pinned pstest, cache key from the sources', () => {
  for (const f of ['go.mod', 'go.sum', 'main.go']) assert.ok(existsSync(join(SOURCE_DIR, f)), f);
  const mod = readFileSync(join(SOURCE_DIR, 'go.mod'), 'utf8');
  assert.match(mod, /cloud\.google\.com\/go\/pubsub\/v2 v2\.\d+\.\d+/);
  assert.match(readFileSync(join(SOURCE_DIR, 'main.go'), 'utf8'), /pstest\.NewServerWithAddress/);
  assert.match(sourceHash(), /^[0-9a-f]{16}$/);
});

test('emulator: pstest by default; outstandingPerKey only with convoy\'s, as a subscription label; retryPolicy as durations', () => {
  const d = resolveSettings({ kind: 'pubsub' });
  assert.equal(d.emulator, 'pstest');
  assert.equal(d.outstandingPerKey, 0);
  assert.throws(() => resolveSettings({ kind: 'pubsub', outstandingPerKey: 1 }), (e: unknown) => e instanceof InputError && e.detail.some((l) => /emulator: convoy/.test(l)));
  assert.throws(() => resolveSettings({ kind: 'pubsub', retryPolicy: { minimumBackoffMs: 500, maximumBackoffMs: 100 } }), InputError);
  const s = resolveSettings({ kind: 'pubsub', emulator: 'convoy', outstandingPerKey: 2, retryPolicy: { minimumBackoffMs: 1500, maximumBackoffMs: 60000 } });
  const opts = subscriptionOptions(s, 'p', namesOf(s, { runId: 'r', prefix: 'convoy-r' }));
  assert.deepEqual(opts.labels, { [OUTSTANDING_PER_KEY_LABEL]: '2' });
  assert.deepEqual(opts.retryPolicy, { minimumBackoff: { seconds: 1, nanos: 500e6 }, maximumBackoff: { seconds: 60, nanos: 0 } });
  assert.equal(subscriptionOptions(d, 'p', namesOf(d, { runId: 'r', prefix: 'convoy-r' })).labels, undefined);
});

test('emulator convoy: the containers and external runtimes refuse it before anything starts', async () => {
  const s = resolveSettings({ kind: 'pubsub', emulator: 'convoy' });
  await assert.rejects(pubsub.deploy({ runtime: 'external', workDir: '', cacheDir: '', log: () => undefined, external: { projectId: 'p' } }, s), (e: unknown) => e instanceof InputError && /local runtime only/.test(e.message));
});
