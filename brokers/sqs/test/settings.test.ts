/** What the SQS module generates without a broker: settings, names, queue attributes, config, services. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sqs from '../index.ts';
import { queueAttributes } from '../admin.ts';
import { deduplicationId, toSendFailure, visibilitySchedule } from '../client.ts';
import { queueName, queuesOf } from '../connection.ts';
import { CONTAINER_PORTS, ELASTICMQ_PORT, PROXY_LISTEN_PORT } from '../containers.ts';
import { externalEndpoint } from '../external.ts';
import { elasticmqConfig, pomXml } from '../local.ts';
import { resolveSettings } from '../settings.ts';
import { InputError } from '../../../harness/errors.ts';
import { encodeMessage } from '../../../harness/workload/codec.ts';

test('defaults: FIFO, explicit dedup, 30 s visibility, no DLQ, 1 s long polls of up to 10', () => {
  const s = resolveSettings({ kind: 'sqs' });
  assert.equal(s.version, '1.7.1');
  assert.equal(s.queueType, 'fifo');
  assert.equal(s.deduplication, 'explicit');
  assert.equal(s.contentBasedDeduplication, false);
  assert.equal(s.visibilityTimeoutSeconds, 30);
  assert.deepEqual(s.deadLetter, { enabled: false, maxReceiveCount: 3, settle: 'exhaust-receives' });
  assert.deepEqual(s.receive, { waitTimeSeconds: 1, maxMessages: 10, pollers: 1, returnGroupOnFailure: true, extendVisibility: false });
  assert.equal(s.producer.serializePerKey, true);
  // Resolving twice gives the same (the runner passes resolved settings to workers).
  assert.deepEqual(resolveSettings(s), s);
});

test('a deadLetter section turns dead-lettering on; content dedup turns on the queue attribute', () => {
  assert.equal(resolveSettings({ kind: 'sqs', deadLetter: { maxReceiveCount: 5 } }).deadLetter.enabled, true);
  assert.equal(resolveSettings({ kind: 'sqs', deadLetter: { enabled: false, maxReceiveCount: 5 } }).deadLetter.enabled, false);
  assert.equal(resolveSettings({ kind: 'sqs', deduplication: 'content' }).contentBasedDeduplication, true);
});

test('bad settings fail with one line per problem', () => {
  const bad = (s: Record<string, unknown>, re: RegExp) =>
    assert.throws(() => resolveSettings({ kind: 'sqs', ...s }), (e: unknown) => e instanceof InputError && e.detail.some((l) => re.test(l)));
  bad({ queue: 'x' }, /unknown field "queue"/);
  bad({ queueType: 'priority' }, /broker\.queueType: .*standard, fifo/);
  bad({ receive: { maxMessages: 11 } }, /broker\.receive\.maxMessages/);
  bad({ visibilityTimeoutSeconds: 50000 }, /visibilityTimeoutSeconds/);
  bad({ queueType: 'standard', contentBasedDeduplication: true }, /FIFO queues only/);
  bad({ deduplication: 'content', contentBasedDeduplication: false }, /needs contentBasedDeduplication/);
});

test('queue names: prefix-main[.fifo], at most 80 characters, distinct per run', () => {
  assert.equal(queueName('convoy-run1', 'main', true), 'convoy-run1-main.fifo');
  assert.equal(queueName('convoy-run1', 'dlq', false), 'convoy-run1-dlq');
  const long = `convoy-${'x'.repeat(100)}`;
  const a = queueName(long, 'main', true);
  assert.ok(a.length <= 80 && a.endsWith('-main.fifo'));
  assert.notEqual(a, queueName(`${long}y`, 'main', true));
  const s = resolveSettings({ kind: 'sqs', queueType: 'standard', deadLetter: { enabled: true } });
  assert.deepEqual(queuesOf(s, { runId: 'r', prefix: 'convoy-r' }), { main: 'convoy-r-main', deadLetter: 'convoy-r-dlq' });
});

test('queue attributes: FIFO, dedup, visibility and the redrive policy', () => {
  const s = resolveSettings({ kind: 'sqs', visibilityTimeoutSeconds: 2, deadLetter: { maxReceiveCount: 4 } });
  assert.deepEqual(queueAttributes(s, 'arn:aws:sqs:us-east-1:000000000000:q-dlq.fifo'), {
    VisibilityTimeout: '2',
    FifoQueue: 'true',
    ContentBasedDeduplication: 'false',
    RedrivePolicy: '{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:q-dlq.fifo","maxReceiveCount":4}',
  });
  assert.deepEqual(queueAttributes(resolveSettings({ kind: 'sqs', queueType: 'standard' })), { VisibilityTimeout: '30' });
});

test('deduplication id: producer.key.seq from the payload header, a hash when it is not printable ASCII', () => {
  const p = encodeMessage({ producer: 'orders', key: 'k-7', seq: 12, intendedUs: null, poison: false }, 64);
  assert.equal(deduplicationId(p, 'fallback'), 'orders.k-7.12');
  assert.equal(deduplicationId(Buffer.from('not convoy'), 'p1.3'), 'p1.3');
  assert.match(deduplicationId(Buffer.from('x'), 'ключ'), /^[0-9a-f]{64}$/);
});

test('send failures: definite only when the service refused the request', () => {
  const refused = Object.assign(new Error('bad group'), { name: 'InvalidParameterValue', $fault: 'client', $metadata: { httpStatusCode: 400, attempts: 1 } });
  assert.equal(toSendFailure(refused, 'SendMessage').definite, true);
  const throttled = Object.assign(new Error('slow down'), { name: 'RequestThrottled', $fault: 'client', $metadata: { httpStatusCode: 400 } });
  assert.equal(toSendFailure(throttled, 'SendMessage').definite, false);
  const server = Object.assign(new Error('oops'), { $fault: 'server', $metadata: { httpStatusCode: 500 } });
  assert.equal(toSendFailure(server, 'SendMessage').definite, false);
  const net = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', $metadata: { attempts: 3 } });
  assert.equal(toSendFailure(net, 'SendMessage').definite, false);
});

test('local files: the pom names the ElasticMQ server, the config binds loopback on the given port', () => {
  const pom = pomXml('1.7.1');
  assert.match(pom, /<groupId>org\.elasticmq<\/groupId><artifactId>elasticmq-server_2\.13<\/artifactId><version>1\.7\.1<\/version>/);
  const conf = elasticmqConfig(41234);
  assert.match(conf, /bind-port = 41234, bind-hostname = "127\.0\.0\.1"/);
  assert.match(conf, /node-address \{ protocol = "http", host = "127\.0\.0\.1", port = 41234/);
  assert.match(conf, /rest-stats \{ enabled = false \}/);
  assert.match(conf, /region = "us-east-1"/);
});

test('containers: the elasticmq-native image and a toxiproxy in front of its SQS port', () => {
  const services = sqs.containerServices({ kind: 'sqs', version: '1.7.1' });
  assert.deepEqual(
    services.map((s) => [s.name, s.image]),
    [
      ['elasticmq', 'softwaremill/elasticmq-native:1.7.1'],
      ['sqs-toxiproxy', 'ghcr.io/shopify/toxiproxy:2.12.0'],
    ],
  );
  assert.deepEqual(services[0]!.ports, [{ container: ELASTICMQ_PORT, host: CONTAINER_PORTS.sqsDirect }]);
  assert.deepEqual(services[1]!.ports, [
    { container: 8474, host: CONTAINER_PORTS.toxiproxyApi },
    { container: PROXY_LISTEN_PORT, host: CONTAINER_PORTS.sqsViaProxy },
  ]);
  assert.deepEqual(services[1]!.dependsOn, ['elasticmq']);
});

test('external: region is required; endpoint and credentials are passed through when given', () => {
  const s = resolveSettings({ kind: 'sqs' });
  const saved = [process.env.AWS_REGION, process.env.AWS_DEFAULT_REGION];
  delete process.env.AWS_REGION;
  delete process.env.AWS_DEFAULT_REGION;
  try {
    assert.throws(() => externalEndpoint({}, s), /needs a region/);
  } finally {
    if (saved[0] !== undefined) process.env.AWS_REGION = saved[0];
    if (saved[1] !== undefined) process.env.AWS_DEFAULT_REGION = saved[1];
  }
  assert.deepEqual(externalEndpoint({ region: 'eu-west-1' }, s), { region: 'eu-west-1' });
  assert.deepEqual(externalEndpoint({ region: 'eu-west-1', endpoint: 'https://sqs.eu-west-1.amazonaws.com', accessKeyId: 'A', secretAccessKey: 'B' }, s), {
    region: 'eu-west-1',
    url: 'https://sqs.eu-west-1.amazonaws.com',
    adminUrl: 'https://sqs.eu-west-1.amazonaws.com',
    credentials: { accessKeyId: 'A', secretAccessKey: 'B' },
  });
  assert.throws(() => externalEndpoint({ region: 'eu-west-1', accessKeyId: 'A' }, s), /both accessKeyId and secretAccessKey/);
});

test('extendVisibility: the extension is sent by three quarters of the timeout, whatever the timeout', () => {
  for (const seconds of [1, 2, 3, 5, 30, 43_200]) {
    const { askEveryMs, extendAfterMs } = visibilitySchedule(seconds);
    // The latest ask that finds it due: just under extendAfterMs, then one interval later.
    assert.ok(extendAfterMs + askEveryMs <= seconds * 750, `${seconds} s: asked every ${askEveryMs} ms, due after ${extendAfterMs} ms`);
    assert.ok(askEveryMs <= 1_000 && extendAfterMs >= askEveryMs, `${seconds} s: one call per half timeout, asks at most every second`);
  }
});
