/** Kafka settings, endpoints, container rendering and the settlement ledger: no broker needed. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import kafka from '../index.ts';
import { resolveSettings, settingsSchema } from '../settings.ts';
import { endpointFromExternal, kafkajsConnection, rdkafkaConnection } from '../endpoint.ts';
import { containerProxies, containerServices, envName, CONTAINER_PORTS } from '../containers.ts';
import { PartitionLedger } from '../consumer-core.ts';
import { brokerProperties, newClusterId } from '../topology.ts';
import { InputError } from '../../../harness/errors.ts';

function rejects(raw: Record<string, unknown>, pattern: RegExp): void {
  assert.throws(
    () => resolveSettings({ kind: 'kafka', ...raw }),
    (err: unknown) => {
      assert.ok(err instanceof InputError, `expected InputError, got ${String(err)}`);
      const text = [err.message, ...err.detail].join('\n');
      assert.match(text, pattern);
      return true;
    },
  );
}

test('defaults are filled in and recorded', () => {
  const s = resolveSettings({ kind: 'kafka' });
  assert.equal(s.nodes, 1);
  assert.equal(s.client, 'kafkajs');
  assert.deepEqual(s.topic, { partitions: 3, replicationFactor: 1, minInsyncReplicas: 1, clusterDefaults: true });
  // A scenario that sets either replication setting gets them on an external cluster too; resolving twice keeps the mark.
  assert.equal(resolveSettings({ kind: 'kafka', topic: { replicationFactor: 1 } }).topic.clusterDefaults, false);
  assert.equal(resolveSettings(s).topic.clusterDefaults, true);
  assert.equal(s.producer.acks, -1);
  assert.equal(s.producer.partitioner, 'murmur2');
  assert.equal(s.producer.lingerMs, 0);
  assert.equal(s.consumer.maxPollIntervalMs, undefined, 'kafkajs has no max.poll.interval.ms');
  const three = resolveSettings({ kind: 'kafka', nodes: 3, client: 'confluent' });
  assert.deepEqual(three.topic, { partitions: 3, replicationFactor: 3, minInsyncReplicas: 2, clusterDefaults: true });
  assert.equal(three.producer.lingerMs, 5);
  assert.equal(three.consumer.maxPollIntervalMs, 300_000);
  assert.equal(three.consumer.api, 'native', "the confluent consumer runs on the library's KafkaConsumer unless told otherwise");
  assert.equal(s.consumer.api, undefined, 'kafkajs has one consumer API');
  assert.equal(resolveSettings({ kind: 'kafka', producer: { acks: 'all' } }).producer.acks, -1);
});

test('typos and unknown keys are rejected at every level, naming the path', () => {
  rejects({ partitons: 3 }, /broker\.partitons: unknown setting/);
  rejects({ topic: { partitons: 3 } }, /broker\.topic\.partitons: unknown setting \(allowed: partitions, replicationFactor, minInsyncReplicas, clusterDefaults\)/);
  rejects({ producer: { ack: 1 } }, /broker\.producer\.ack: unknown setting/);
  rejects({ consumer: { sessionTimeout: 1000 } }, /broker\.consumer\.sessionTimeout: unknown setting/);
  rejects({ nodes: 2 }, /broker\.nodes: 2 is not one of 1, 3/);
  rejects({ client: 'rdkafka' }, /broker\.client: "rdkafka" is not one of "kafkajs", "confluent", "java"/);
  rejects({ version: '3.9.0' }, /broker\.version: "3\.9\.0" does not match/);
  rejects({ producer: { maxInFlight: 0 } }, /maxInFlight: must be >= 1/);
  rejects({ topic: { partitions: 1.5 } }, /expected integer/);
});

test('settings one client cannot honour are refused with the reason', () => {
  rejects({ producer: { partitioner: 'crc32' } }, /crc32: kafkajs has only the murmur2 partitioner for keyed records; use client: confluent/);
  rejects({ consumer: { maxPollIntervalMs: 10_000 } }, /kafkajs has no max\.poll\.interval\.ms/);
  rejects({ consumer: { api: 'kafkajs-layer' } }, /broker\.consumer\.api: .*use client: confluent/);
  rejects({ client: 'confluent', consumer: { api: 'rdkafka' } }, /api/);
  assert.equal(resolveSettings({ kind: 'kafka', client: 'confluent', consumer: { api: 'kafkajs-layer' } }).consumer.api, 'kafkajs-layer');
  rejects({ producer: { lingerMs: 5 } }, /kafkajs .* no linger/);
  rejects({ producer: { idempotent: true, maxInFlight: 5 } }, /at most 1 is in flight/);
  rejects({ producer: { idempotent: true, acks: 1 } }, /idempotent needs acks -1/);
  rejects({ client: 'confluent', producer: { idempotent: true, maxInFlight: 6 } }, /at most 5 requests in flight/);
  rejects({ topic: { replicationFactor: 1, minInsyncReplicas: 2 } }, /cannot exceed replicationFactor/);
  rejects({ client: 'confluent', consumer: { sessionTimeoutMs: 45_000, maxPollIntervalMs: 10_000 } }, /maxPollIntervalMs must be >= sessionTimeoutMs/);
  const ok = resolveSettings({ kind: 'kafka', client: 'confluent', producer: { partitioner: 'crc32', idempotent: true, maxInFlight: 5 } });
  assert.equal(ok.producer.partitioner, 'crc32');
  assert.equal(resolveSettings({ kind: 'kafka', producer: { idempotent: true } }).producer.maxInFlight, 1);
  // librdkafka debug contexts pass through for the librdkafka client only.
  rejects({ producer: { debug: 'eos' } }, /producer\.debug: librdkafka debug contexts; kafkajs/);
  rejects({ client: 'confluent', producer: { debug: 'eos; rm' } }, /broker\.producer\.debug/);
  assert.equal(resolveSettings({ kind: 'kafka', client: 'confluent', producer: { debug: 'eos,msg' } }).producer.debug, 'eos,msg');
  assert.equal(resolveSettings({ kind: 'kafka', client: 'confluent' }).producer.debug, undefined);
});

test('librdkafka-only producer settings: refused with kafkajs, resolved with confluent; peer links default direct', () => {
  rejects({ producer: { socketTimeoutMs: 60_000 } }, /socketTimeoutMs: a librdkafka setting/);
  rejects({ producer: { retryBackoffMs: 20 } }, /retryBackoffMs: kafkajs backs off on its own schedule; use client: confluent or java/);
  rejects({ producer: { debug: 'msg' } }, /debug: librdkafka debug contexts; kafkajs has none/);
  rejects({ peerLinks: 'tunnelled' }, /broker\.peerLinks/);
  assert.equal(resolveSettings({ kind: 'kafka', producer: { debug: '' } }).producer.debug, undefined);
  const c = resolveSettings({ kind: 'kafka', client: 'confluent', peerLinks: 'proxied', producer: { socketTimeoutMs: 60_000, retryBackoffMs: 20, debug: 'msg,protocol' } });
  assert.deepEqual([c.producer.socketTimeoutMs, c.producer.retryBackoffMs, c.producer.debug, c.peerLinks], [60_000, 20, 'msg,protocol', 'proxied']);
  assert.equal(resolveSettings({ kind: 'kafka' }).peerLinks, 'direct');
});

test('the published schema is valid JSON Schema and agrees with resolveSettings', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const validate = ajv.compile(settingsSchema);
  assert.equal(validate({ kind: 'kafka', nodes: 3, client: 'confluent', producer: { acks: 'all', partitioner: 'crc32' } }), true);
  assert.equal(validate({ kind: 'kafka', topic: { partitons: 3 } }), false);
  assert.equal(validate({ kind: 'kafka', brokerConfig: { 'num.io.threads': 4, 'log.cleaner.enable': false } }), true);
  assert.equal(validate({ kind: 'kafka', brokerConfig: { x: { nested: 1 } } }), false);
  assert.equal(kafka.settingsSchema, settingsSchema);
});

test('external endpoints: bootstrap servers, TLS and SASL pass through to both clients', () => {
  assert.throws(() => endpointFromExternal(undefined), /needs --external bootstrapServers/);
  assert.throws(() => endpointFromExternal({ bootstrapServers: 'nohost' }), /not host:port/);
  assert.throws(() => endpointFromExternal({ bootstrapServers: 'h:1', sasl: { mechanism: 'gssapi', username: 'u', password: 'p' } }), /sasl\.mechanism/);
  assert.throws(() => endpointFromExternal({ bootstrapServers: 'h:1', bootstrapservers: 'x' }), /unknown setting/);
  const e = endpointFromExternal({ bootstrap: { servers: 'a:9092,b:9093' }, ssl: true, sasl: { mechanism: 'SCRAM-SHA-512', username: 'u', password: 'p' } });
  assert.deepEqual(e.bootstrapServers, ['a:9092', 'b:9093']);
  assert.deepEqual(endpointFromExternal({ bootstrap: 'h:9092' }).bootstrapServers, ['h:9092'], 'the CLI help spells it bootstrap=');
  const kj = kafkajsConnection(e);
  assert.equal(kj.ssl, true);
  assert.deepEqual(kj.sasl, { mechanism: 'scram-sha-512', username: 'u', password: 'p' });
  const rd = rdkafkaConnection(e);
  assert.equal(rd['bootstrap.servers'], 'a:9092,b:9093');
  assert.equal(rd['security.protocol'], 'sasl_ssl');
  assert.equal(rd['sasl.mechanism'], 'SCRAM-SHA-512');
  const tls = rdkafkaConnection(endpointFromExternal({ bootstrapServers: 'h:1', ssl: { rejectUnauthorized: false } }));
  assert.equal(tls['security.protocol'], 'ssl');
  assert.equal(tls['enable.ssl.certificate.verification'], false);
});

test('broker properties: clients are told the proxy address, replication and quorum go direct', () => {
  const nodes = [1, 2, 3].map((id) => ({
    id,
    bindClient: `127.0.0.1:${1000 + id}`,
    bindInternal: `127.0.0.1:${2000 + id}`,
    bindController: `127.0.0.1:${3000 + id}`,
    internal: `127.0.0.1:${2000 + id}`,
    controller: `127.0.0.1:${3000 + id}`,
    advertisedClient: `127.0.0.1:${4000 + id}`,
    admin: `127.0.0.1:${5000 + id}`,
  }));
  const p = brokerProperties(nodes[1]!, { nodes, logDir: () => '/d', extra: { 'num.io.threads': 2 } });
  assert.equal(p['advertised.listeners'], 'CLIENT://127.0.0.1:4002,INTERNAL://127.0.0.1:2002,ADMIN://127.0.0.1:5002');
  assert.equal(p.listeners, 'CLIENT://127.0.0.1:1002,INTERNAL://127.0.0.1:2002,CONTROLLER://127.0.0.1:3002,ADMIN://127.0.0.1:5002');
  assert.equal(p['controller.quorum.voters'], '1@127.0.0.1:3001,2@127.0.0.1:3002,3@127.0.0.1:3003');
  assert.equal(p['inter.broker.listener.name'], 'INTERNAL');
  assert.equal(p['min.insync.replicas'], '2');
  assert.equal(p['offsets.topic.replication.factor'], '3');
  assert.equal(p['num.io.threads'], '2', 'user overrides win');
  assert.match(newClusterId(), /^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
});

test('container services: same topology, apache/kafka env, toxiproxy in front of every node', () => {
  const s = resolveSettings({ kind: 'kafka', nodes: 3, version: '4.4.0' });
  const services = kafka.containerServices(s);
  assert.deepEqual(
    services.map((x) => x.name),
    ['kafka-1', 'kafka-2', 'kafka-3', 'kafka-toxiproxy'],
  );
  const k2 = services[1]!;
  assert.equal(k2.image, 'apache/kafka:4.4.0');
  const env = k2.environment!;
  assert.equal(env.KAFKA_NODE_ID, '2');
  assert.equal(env.KAFKA_PROCESS_ROLES, 'broker,controller');
  assert.equal(env.KAFKA_CONTROLLER_QUORUM_VOTERS, '1@kafka-1:9093,2@kafka-2:9093,3@kafka-3:9093');
  assert.equal(env.KAFKA_ADVERTISED_LISTENERS, `CLIENT://localhost:${CONTAINER_PORTS.proxyBase + 2},INTERNAL://kafka-2:19092,ADMIN://localhost:${CONTAINER_PORTS.adminBase + 2}`);
  assert.equal(env.KAFKA_LISTENERS, `CLIENT://0.0.0.0:9092,INTERNAL://0.0.0.0:19092,CONTROLLER://0.0.0.0:9093,ADMIN://0.0.0.0:${CONTAINER_PORTS.adminBase + 2}`);
  assert.equal(env.KAFKA_MIN_INSYNC_REPLICAS, '2');
  assert.equal(env.KAFKA_LOG_DIRS, '/var/lib/kafka/data');
  assert.match(env.CLUSTER_ID!, /^[A-Za-z0-9_-]{22}$/);
  assert.equal(env.KAFKA_HEAP_OPTS, '-Xms128m -Xmx512m');
  assert.ok(k2.healthcheck?.test.join(' ').includes('kafka-broker-api-versions.sh --bootstrap-server kafka-2:19092'));
  const toxi = services[3]!;
  assert.match(toxi.image, /^ghcr\.io\/shopify\/toxiproxy:2\.12\.0$/);
  assert.deepEqual(toxi.dependsOn, ['kafka-1', 'kafka-2', 'kafka-3']);
  assert.deepEqual(
    toxi.ports.map((p) => p.host),
    [CONTAINER_PORTS.toxiproxyApi, CONTAINER_PORTS.proxyBase + 1, CONTAINER_PORTS.proxyBase + 2, CONTAINER_PORTS.proxyBase + 3],
  );
  assert.deepEqual(containerProxies(s)[2], { name: 'kafka-node-3', listen: `0.0.0.0:${CONTAINER_PORTS.proxyBase + 3}`, upstream: 'kafka-3:9092' });
  assert.deepEqual(kafka.containerServices(s), services, 'rendering is deterministic');
  assert.equal(envName('log.cleaner.dedupe.buffer.size'), 'KAFKA_LOG_CLEANER_DEDUPE_BUFFER_SIZE');
  assert.equal(envName('a_b-c.d'), 'KAFKA_A__B___C_D');
  assert.equal(kafka.containerServices(resolveSettings({ kind: 'kafka' })).length, 2);
});

test('ledger commits only the contiguous settled prefix; rewind drops later deliveries', () => {
  const l = new PartitionLedger();
  const a = l.deliver(10);
  const b = l.deliver(11);
  const c = l.deliver(13); // offsets need not be contiguous (control records, compaction)
  assert.equal(l.settle(b), false, 'a gap at 10: nothing committable');
  assert.equal(l.committable, undefined);
  assert.equal(l.settle(a), true);
  assert.equal(l.committable, 12, '10 and 11 settled: commit 12');
  l.rewind(13);
  assert.equal(c.dropped, true);
  const c2 = l.deliver(13);
  assert.equal(l.lastCount, 2, 'redelivery counted');
  l.settle(c2);
  assert.equal(l.committable, 14);
  assert.equal(l.outstanding, 0);
});

test('client java: convoy\'s cross-client defaults unless producer.defaults is client; Java-only settings refused elsewhere', () => {
  const j = resolveSettings({ kind: 'kafka', client: 'java' });
  assert.deepEqual(
    [j.producer.idempotent, j.producer.maxInFlight, j.producer.retries, j.producer.lingerMs, j.producer.batchSize, j.producer.deliveryTimeoutMs, j.producer.defaults],
    [false, 5, 10, 5, 16_384, 120_000, 'convoy'],
  );
  assert.deepEqual([j.consumer.groupProtocol, j.consumer.assignor, j.consumer.maxPollIntervalMs, j.consumer.staticMembership], ['classic', 'range', 300_000, false]);
  const own = resolveSettings({ kind: 'kafka', client: 'java', producer: { defaults: 'client' } });
  assert.deepEqual([own.producer.idempotent, own.producer.retries, own.producer.lingerMs], [true, 2_147_483_647, 5], "the Java client's own: idempotence on, linger 5");
  assert.equal(resolveSettings({ kind: 'kafka', client: 'confluent', producer: { defaults: 'client' } }).producer.deliveryTimeoutMs, 300_000);
  assert.equal(resolveSettings({ kind: 'kafka', client: 'java', producer: { defaults: 'client', idempotent: false } }).producer.idempotent, false, 'a setting given wins over either defaults');
  assert.equal(resolveSettings({ kind: 'kafka', client: 'java', consumer: { groupProtocol: 'consumer' } }).consumer.assignor, 'uniform');
  rejects({ producer: { ignoreKeys: true } }, /broker\.producer\.ignoreKeys: partitioner\.ignore\.keys is a Java client setting; use client: java/);
  rejects({ client: 'confluent', consumer: { groupProtocol: 'consumer' } }, /broker\.consumer\.groupProtocol: not a setting of the confluent client; use client: java/);
  rejects({ client: 'java', producer: { partitioner: 'crc32' } }, /the Java client has only the murmur2 partitioner/);
  rejects({ client: 'java', producer: { socketTimeoutMs: 1000 } }, /socketTimeoutMs: a librdkafka setting; the Java client/);
  rejects({ client: 'java', consumer: { groupProtocol: 'consumer', assignor: 'cooperative-sticky' } }, /consumer group protocol assigns on the broker/);
  rejects({ client: 'java', consumer: { assignor: 'uniform' } }, /broker-side assignor of the consumer group protocol/);
  rejects({ client: 'java', producer: { deliveryTimeoutMs: 1000 } }, /at least lingerMs \+ requestTimeoutMs/);
  rejects({ client: 'java', clientProcess: {} }, /client java always runs in a process of its own/);
  rejects({ client: 'kafkajs', javaClient: { version: '4.4.0' } }, /broker\.javaClient: .*use client: java/);
  assert.equal(resolveSettings({ kind: 'kafka', client: 'java', javaClient: { version: '4.3.1' } }).javaClient?.version, '4.3.1');
  // Static membership for every consumer process, or for the ones named.
  assert.deepEqual(resolveSettings({ kind: 'kafka', client: 'java', consumer: { staticMembership: ['c1'] } }).consumer.staticMembership, ['c1']);
  rejects({ client: 'java', consumer: { staticMembership: ['p1'] } }, /broker\.consumer\.staticMembership\[0\]: "p1" does not match/);
  rejects({ client: 'java', consumer: { staticMembership: [] } }, /broker\.consumer\.staticMembership: expected at least 1 item/);
  rejects({ client: 'java', consumer: { staticMembership: ['c1', 'c1'] } }, /names a consumer twice/);
  rejects({ client: 'java', consumer: { staticMembership: 'c1' } }, /broker\.consumer\.staticMembership: expected boolean or array/);
  rejects({ client: 'confluent', consumer: { staticMembership: ['c1'] } }, /broker\.consumer\.staticMembership: not a setting of the confluent client; use client: java/);
});

// Regression: a producer process on its own client (`processBroker: [{ client: java }]`) merges
// its override over settings already resolved for the scenario's client, whose filled-in
// defaults (consumer.api native, groupProtocol classic, ...) were refused as the other client's.
test('settings resolved for one client resolve again for another; a setting written for another client is still refused', () => {
  const forJava = resolveSettings({ ...resolveSettings({ kind: 'kafka', client: 'confluent' }), client: 'java' }) as Record<string, any>;
  assert.equal(forJava.client, 'java');
  assert.equal(forJava.consumer.api, undefined);
  const forConfluent = resolveSettings({ ...resolveSettings({ kind: 'kafka', client: 'java' }), client: 'confluent' }) as Record<string, any>;
  assert.equal(forConfluent.consumer.groupProtocol, undefined);
  assert.equal(forConfluent.consumer.api, 'native');
  rejects({ client: 'java', consumer: { api: 'kafkajs-layer' } }, /consumer\.api: chooses between/);
  rejects({ client: 'confluent', consumer: { groupProtocol: 'consumer' } }, /consumer\.groupProtocol/);
});

test('share groups: Java client, Kafka 4.2 on, no classic-only settings; settings go where the version keeps them', () => {
  const s = resolveSettings({ kind: 'kafka', client: 'java', consumer: { groupProtocol: 'share', share: { lockDurationMs: 5000 } } });
  assert.deepEqual(s.consumer.share?.groupConfigs, { 'share.auto.offset.reset': 'earliest', 'share.record.lock.duration.ms': '5000', 'share.delivery.count.limit': '5' });
  assert.deepEqual(resolveSettings({ ...s }).consumer.share, s.consumer.share, 'resolved settings resolve again unchanged');
  const old = resolveSettings({ kind: 'kafka', client: 'java', version: '4.2.2', consumer: { groupProtocol: 'share', share: { deliveryCountLimit: 3 } } });
  assert.equal(old.brokerConfig['group.share.delivery.count.limit'], 3, "4.2 has the delivery-count limit as a broker config only");
  assert.equal(old.consumer.share?.groupConfigs['share.delivery.count.limit'], undefined);
  rejects({ client: 'java', version: '4.1.2', consumer: { groupProtocol: 'share' } }, /broker\.consumer\.groupProtocol share: Kafka 4\.1\.2 .* set broker\.version to 4\.2\.0 or later/);
  rejects({ client: 'kafkajs', consumer: { groupProtocol: 'share' } }, /set broker\.client: java/);
  rejects({ client: 'java', consumer: { groupProtocol: 'share', assignor: 'range' } }, /broker\.consumer\.assignor: not a share group setting/);
  rejects({ client: 'java', consumer: { groupProtocol: 'share', sessionTimeoutMs: 10_000 } }, /broker\.consumer\.sessionTimeoutMs: not a share group setting/);
  rejects({ client: 'java', consumer: { share: { lockDurationMs: 5000 } } }, /broker\.consumer\.share: share group settings need broker\.consumer\.groupProtocol: share/);
  rejects({ client: 'java', version: '4.3.1', consumer: { groupProtocol: 'share', share: { deadLetterTopic: true } } }, /dead-letter topics from Kafka 4\.4/);
});

test('client platformatic: the settings it has, its own defaults, and one line naming it for each it lacks', () => {
  const s = resolveSettings({ kind: 'kafka', client: 'platformatic' });
  assert.deepEqual([s.producer.idempotent, s.producer.maxInFlight, s.producer.retries, s.producer.lingerMs, s.producer.batchSize, s.producer.deliveryTimeoutMs], [false, 5, 10, 0, undefined, undefined]);
  assert.equal(s.consumer.maxPollIntervalMs, undefined, 'no max.poll.interval.ms');
  const own = resolveSettings({ kind: 'kafka', client: 'platformatic', producer: { defaults: 'client' } });
  assert.deepEqual([own.producer.retries, own.producer.requestTimeoutMs], [3, 5_000], "the library's own: 3 retries, 5 s timeout");
  // Idempotence: the library sets its connections to one request at a time.
  assert.equal(resolveSettings({ kind: 'kafka', client: 'platformatic', producer: { idempotent: true } }).producer.maxInFlight, 1);
  rejects({ client: 'platformatic', producer: { idempotent: true, maxInFlight: 5 } }, /broker\.producer\.idempotent with platformatic: @platformatic\/kafka sets its connections to one request at a time/);
  assert.equal(resolveSettings({ kind: 'kafka', client: 'platformatic', producer: { retryBackoffMs: 20, metadataMaxAgeMs: 500 } }).producer.retryBackoffMs, 20);
  rejects({ client: 'platformatic', producer: { lingerMs: 5 } }, /broker\.producer\.lingerMs: @platformatic\/kafka sends every send\(\) at once and has no linger; use client: confluent or java/);
  rejects({ client: 'platformatic', producer: { deliveryTimeoutMs: 5000 } }, /deliveryTimeoutMs: @platformatic\/kafka has no delivery timeout/);
  rejects({ client: 'platformatic', consumer: { maxPollIntervalMs: 8000 } }, /broker\.consumer\.maxPollIntervalMs: @platformatic\/kafka has no max\.poll\.interval\.ms/);
  rejects({ client: 'platformatic', producer: { partitioner: 'crc32' } }, /@platformatic\/kafka has only the murmur2 partitioner/);
  rejects({ client: 'platformatic', consumer: { groupProtocol: 'share' } }, /set broker\.client: java/);
  // Resolved for another client, then for this one (a producer process on its own client).
  assert.equal(resolveSettings({ ...resolveSettings({ kind: 'kafka', client: 'kafkajs' }), client: 'platformatic' }).client, 'platformatic');
});
