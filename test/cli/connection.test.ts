/**
 * The external runtime's settings (harness/cli/connection.ts): where they come from and in which
 * order, what each broker kind takes, secrets by reference, and that every secret a broker
 * declares is redacted. No broker, no run: the functions directly, and `convoy validate` once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { envName, externalSource, loadConnection, resolveExternal, secretParts, type ResolveInput } from '../../harness/cli/connection.ts';
import { clearRegisteredSecrets, redactSecrets, redactString } from '../../harness/checker/redact.ts';
import { loadBroker, brokerNames } from '../../harness/broker/registry.ts';
import { EXTERNAL_SETTINGS as KAFKA, endpointFromExternal, javaConnection, rdkafkaConnection } from '../../brokers/kafka/endpoint.ts';
import { platformaticOptions, unsecuredJwt } from '../../brokers/kafka/client-config.ts';
import { connectionAddress } from '../../harness/broker/connection-address.ts';
import { externalRuns, forgetExternalRun, recordExternalRun } from '../../harness/runtime/external-ledger.ts';
import { cleanExternal } from '../../harness/cli/commands/clean.ts';
import { EXTERNAL_SETTINGS as RABBIT } from '../../brokers/rabbitmq/external.ts';
import { validateFiles } from '../../harness/cli/commands/validate.ts';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';
import { InputError } from '../../harness/errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'convoy-connection-'));

function kafka(over: Partial<ResolveInput> = {}): { settings: Record<string, unknown>; warnings: string[] } {
  const warnings: string[] = [];
  const settings = resolveExternal({ kind: 'kafka', settings: KAFKA, pairs: [], env: {}, warn: (w) => warnings.push(w), ...over });
  return { settings, warnings };
}

function inputError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof InputError, `an InputError, got ${String(err)}`);
    assert.ok(!err.message.includes('\n'), 'one line');
    return err.message;
  }
  assert.fail('no error');
}

test('environment variable names: the dotted, camel-cased key in capitals under CONVOY_EXTERNAL_', () => {
  assert.equal(envName('sasl.password'), 'CONVOY_EXTERNAL_SASL_PASSWORD');
  assert.equal(envName('bootstrapServers'), 'CONVOY_EXTERNAL_BOOTSTRAP_SERVERS');
  assert.equal(envName('secretAccessKey'), 'CONVOY_EXTERNAL_SECRET_ACCESS_KEY');
});

test('the command line wins over the connection file, which wins over the environment', () => {
  const file = join(dir, 'staging.yaml');
  writeFileSync(file, 'kind: kafka\nbootstrapServers: file:9092\nsasl:\n  mechanism: plain\n  username: from-file\n  password: ${env:KAFKA_PW}\n');
  const env = { CONVOY_EXTERNAL_BOOTSTRAP_SERVERS: 'env:9092', CONVOY_EXTERNAL_SASL_USERNAME: 'from-env', CONVOY_EXTERNAL_SSL: 'true', KAFKA_PW: 'pw-from-env-ref' };
  const { settings, warnings } = kafka({ connection: loadConnection(file, env), env, pairs: ['sasl.username=from-cli'] });
  assert.deepEqual(settings, { bootstrapServers: 'file:9092', sasl: { mechanism: 'plain', username: 'from-cli', password: 'pw-from-env-ref' }, ssl: true });
  assert.deepEqual(warnings, []);
});

test('a named connection is looked up in $XDG_CONFIG_HOME/convoy/connections.yaml; an unknown name says which exist', () => {
  const config = join(dir, 'config');
  mkdirSync(join(config, 'convoy'), { recursive: true });
  writeFileSync(join(config, 'convoy', 'connections.yaml'), 'staging:\n  kind: kafka\n  bootstrapServers: s1:9092\nprod:\n  kind: rabbitmq\n  url: amqps://u:p@mq:5671/v\n');
  const env = { XDG_CONFIG_HOME: config };
  assert.equal(loadConnection('staging', env).settings.get('bootstrapServers'), 's1:9092');
  assert.match(inputError(() => loadConnection('stagin', env)), /--connection stagin: .*connections\.yaml has no connection of that name \(it has: staging, prod\)/);
  assert.match(inputError(() => loadConnection('nope.yaml', env)), /--connection nope\.yaml: no such file/);
  assert.match(inputError(() => loadConnection('staging', { XDG_CONFIG_HOME: join(dir, 'none') })), /not a file, and there is no .*connections\.yaml/);
  // A rabbitmq connection for a kafka scenario.
  assert.match(inputError(() => kafka({ connection: loadConnection('prod', env) })), /a rabbitmq connection, but the scenario's broker is kafka/);
});

test('a key the broker kind does not take is refused, naming where it came from and what it takes', () => {
  assert.match(inputError(() => kafka({ pairs: ['bootstrapServers=b:9092', 'url=amqp://x'] })), /^--external: kafka takes no external setting "url" \(it takes: bootstrapServers, ssl,/);
  const file = join(dir, 'bad-key.yaml');
  writeFileSync(file, 'kind: rabbitmq\nurl: amqp://h/\nsasl: { password: x }\n');
  const msg = inputError(() => resolveExternal({ kind: 'rabbitmq', settings: RABBIT, pairs: [], env: {}, warn: () => {}, connection: loadConnection(file, {}) }));
  assert.match(msg, /bad-key\.yaml: rabbitmq takes no external setting "sasl\.password"/);
});

test('references: ${env:NAME} and ${file:/path}, whole or inside a URL; a missing one names the reference, never a value', () => {
  const secretFile = join(dir, 'pw.txt');
  writeFileSync(secretFile, 'pw-from-file\n');
  const { settings } = kafka({ pairs: ['bootstrapServers=b:9092', 'sasl.mechanism=plain', 'sasl.username=u', `sasl.password=\${file:${secretFile}}`] });
  assert.equal((settings.sasl as { password: string }).password, 'pw-from-file');
  const rabbit = resolveExternal({ kind: 'rabbitmq', settings: RABBIT, pairs: ['url=amqps://svc:${env:MQ_PW}@mq:5671/orders'], env: { MQ_PW: 'mq-secret-1' }, warn: () => {} });
  assert.equal(rabbit.url, 'amqps://svc:mq-secret-1@mq:5671/orders');
  assert.equal(redactString('connecting to amqps://other:x@h mq-secret-1'), 'connecting to amqps://other:***@h ***');
  const unset = inputError(() => kafka({ pairs: ['sasl.password=${env:NOT_SET_PW}'], env: { CONVOY_EXTERNAL_SASL_USERNAME: 'hunter2-username' } }));
  assert.equal(unset, '--external sasl.password: ${env:NOT_SET_PW} is not set (an empty or missing environment variable)');
  assert.match(inputError(() => kafka({ pairs: [`sasl.password=\${file:${join(dir, 'missing')}}`] })), /\$\{file:.*missing\} cannot be read \(ENOENT\)/);
  clearRegisteredSecrets();
});

test('a literal secret on the command line is taken, with one warning that says why not and how; one in a file or the environment is not warned of', () => {
  const { settings, warnings } = kafka({ pairs: ['bootstrapServers=b:9092', 'sasl.mechanism=plain', 'sasl.username=u', 'sasl.password=hunter2-literal'] });
  assert.equal((settings.sasl as { password: string }).password, 'hunter2-literal');
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /^--external sasl\.password: a secret on the command line shows in ps, shell history and CI logs; set CONVOY_EXTERNAL_SASL_PASSWORD, write --external 'sasl\.password=\$\{env:NAME\}'/);
  assert.ok(!warnings[0].includes('hunter2-literal'));
  // Registered: hidden wherever it turns up, whatever the field is called.
  assert.equal(redactString('auth failed for hunter2-literal'), 'auth failed for ***');
  assert.deepEqual(kafka({ env: { CONVOY_EXTERNAL_SASL_PASSWORD: 'from-env-pw', CONVOY_EXTERNAL_BOOTSTRAP_SERVERS: 'b:9092' } }).warnings, []);
  // A URL without a password is no secret.
  assert.deepEqual(resolveExternal({ kind: 'rabbitmq', settings: RABBIT, pairs: ['url=amqp://guest@h:5672/'], env: {}, warn: (w) => assert.fail(w) }), { url: 'amqp://guest@h:5672/' });
  assert.deepEqual(secretParts('amqps://svc:hunter%32@h/'), ['hunter%32', 'hunter2']);
  clearRegisteredSecrets();
});

test('every secret setting a broker declares is redacted in results, and docs/external.md names it', async () => {
  const docs = readFileSync(new URL('../../docs/external.md', import.meta.url), 'utf8');
  let secrets = 0;
  for (const kind of brokerNames()) {
    const broker = await loadBroker(kind);
    for (const s of broker.externalSettings ?? []) {
      if (!s.aliasOf) assert.ok(docs.includes(`\`${s.key}\``), `docs/external.md names ${kind}'s ${s.key}`);
      if (!s.secret) continue;
      secrets++;
      // As deploy() gets it, with a value of the kind a user writes there.
      const value = s.key.endsWith('url') || s.key.endsWith('Url') ? 'amqps://u:s3cret-value@h/' : s.key === 'connectionString' ? 'Endpoint=sb://h/;SharedAccessKeyName=k;SharedAccessKey=s3cret-value' : s.key === 'ssl.key' ? '-----BEGIN PRIVATE KEY-----\ns3cret-value\n-----END PRIVATE KEY-----' : 's3cret-value';
      const nested = s.key.split('.').reduceRight<unknown>((v, part) => ({ [part]: v }), value);
      assert.ok(!JSON.stringify(redactSecrets({ endpoint: nested })).includes('s3cret-value'), `${kind} ${s.key} is redacted`);
    }
  }
  assert.ok(secrets >= 6, `secrets declared: ${secrets}`);
});

test('validate --print hides a URL\'s password; a connection field on the local runtime is warned of with its place', async () => {
  const base = new URL('../../workloads/nightly/rabbitmq-dlx-redrive.yaml', import.meta.url).pathname;
  const file = join(dir, 'rmq.yaml');
  writeFileSync(file, `extends: ${base}\nbroker:\n  kind: rabbitmq\n  url: amqps://svc:hunter2@mq.staging:5671/orders\n`);
  const out: string[] = [];
  const err: string[] = [];
  const code = await validateFiles([file], (l) => out.push(l), { catalogue: await scenarioCatalogue() }, true, (l) => err.push(l));
  assert.equal(code, 0);
  const printed = out.join('\n');
  assert.match(printed, /url: amqps:\/\/svc:\*\*\*@mq\.staging:5671\/orders/);
  assert.ok(!printed.includes('hunter2') && !err.join('\n').includes('hunter2'));
  assert.deepEqual(err, [`  warning: ${file}:4:3: broker.url: ignored on the local runtime (convoy starts its own rabbitmq); it is read with --runtime external`]);
  // On the external runtime it is what the scenario connects to: no warning.
  const errExternal: string[] = [];
  await validateFiles([file], () => {}, { catalogue: await scenarioCatalogue(), target: { runtime: 'external', allowDestructive: true } }, false, (l) => errExternal.push(l));
  assert.deepEqual(errExternal, []);
});

test('Kafka pass-through settings reach each client in its own form; a setting convoy sets itself is refused in one line naming it and why', () => {
  const file = join(dir, 'pass-through.yaml');
  writeFileSync(file, 'kind: kafka\nbootstrapServers: k:9092\nlibrdkafka:\n  socket.keepalive.enable: true\njava:\n  client.dns.lookup: use_all_dns_ips\nkafkajs:\n  connectionTimeout: 9000\n  consumer:\n    maxBytes: 1048576\n');
  const { settings } = kafka({ connection: loadConnection(file, {}), pairs: ['librdkafka.sasl.oauthbearer.client.secret=pass-through-s3cret'] });
  const e = endpointFromExternal(settings);
  assert.deepEqual(e.clientConfig, {
    kafkajs: { connectionTimeout: 9000, consumer: { maxBytes: 1048576 } },
    librdkafka: { 'socket.keepalive.enable': true, 'sasl.oauthbearer.client.secret': 'pass-through-s3cret' },
    java: { 'client.dns.lookup': 'use_all_dns_ips' },
  });
  assert.equal(rdkafkaConnection(e)['socket.keepalive.enable'], true);
  assert.equal(javaConnection(e)['client.dns.lookup'], 'use_all_dns_ips');
  const plat = endpointFromExternal(kafka({ pairs: ['bootstrapServers=k:9092', 'platformatic.connectTimeout=9000', 'platformatic.consumer.maxWaitTime=100'] }).settings);
  assert.deepEqual([platformaticOptions(plat.clientConfig, 'consumer'), platformaticOptions(plat.clientConfig, 'producer')], [{ connectTimeout: 9000, maxWaitTime: 100 }, { connectTimeout: 9000 }]);
  assert.equal(redactString('secret is pass-through-s3cret'), 'secret is ***', 'a pass-through key named like a secret is redacted');
  clearRegisteredSecrets();
  for (const [pair, why] of [
    ['librdkafka.enable.auto.commit=true', /librdkafka\.enable\.auto\.commit cannot be passed through: convoy's delivery tracking relies on it/],
    ['java.acks=1', /java\.acks cannot be passed through: the scenario sets it \(broker\.producer\.acks\)/],
    ['kafkajs.producer.idempotent=true', /kafkajs\.producer\.idempotent cannot be passed through: the scenario sets it/],
    ['java.sasl.jaas.config=x', /java\.sasl\.jaas\.config cannot be passed through: set from the connection/],
    ['platformatic.consumer.autocommit=true', /platformatic\.consumer\.autocommit cannot be passed through: convoy's delivery tracking relies on it/],
    ['platformatic.maxInflights=9', /platformatic\.maxInflights cannot be passed through: the scenario sets it \(broker\.producer\.maxInFlight\)/],
  ] as const) {
    assert.match(inputError(() => endpointFromExternal(kafka({ pairs: ['bootstrapServers=k:9092', pair] }).settings)), why);
  }
});

test('Kafka logins: SCRAM and OAUTHBEARER in each client\'s form; an unknown mechanism, or what a client lacks, is one line', () => {
  const scram = endpointFromExternal({ bootstrapServers: 'k:9093', ssl: { ca: '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----', cert: '-----BEGIN CERTIFICATE-----\nC\n-----END CERTIFICATE-----', key: '-----BEGIN PRIVATE KEY-----\nK\n-----END PRIVATE KEY-----' }, sasl: { mechanism: 'SCRAM-SHA-512', username: 'convoy', password: 'p"w\\x' } });
  const java = javaConnection(scram);
  assert.equal(java['security.protocol'], 'SASL_SSL');
  assert.equal(java['sasl.mechanism'], 'SCRAM-SHA-512');
  assert.equal(java['sasl.jaas.config'], 'org.apache.kafka.common.security.scram.ScramLoginModule required username="convoy" password="p\\"w\\\\x";');
  assert.equal(java['ssl.truststore.type'], 'PEM');
  assert.equal(java['ssl.keystore.type'], 'PEM');
  assert.match(java['ssl.keystore.key']!, /BEGIN PRIVATE KEY/);
  const oauth = endpointFromExternal({ bootstrapServers: 'k:9092', sasl: { mechanism: 'oauthbearer', principal: 'convoy' } });
  assert.equal(rdkafkaConnection(oauth)['enable.sasl.oauthbearer.unsecure.jwt'], true);
  assert.equal(rdkafkaConnection(oauth)['sasl.oauthbearer.config'], 'principal=convoy');
  assert.match(javaConnection(oauth)['sasl.jaas.config']!, /OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="convoy";/);
  const [header, claims, signature] = unsecuredJwt('convoy', 60, 1_000).split('.');
  assert.deepEqual(JSON.parse(Buffer.from(header!, 'base64url').toString()), { alg: 'none' });
  assert.deepEqual(JSON.parse(Buffer.from(claims!, 'base64url').toString()), { sub: 'convoy', iat: 1_000, exp: 1_060 });
  assert.equal(signature, '');
  assert.match(inputError(() => endpointFromExternal({ bootstrapServers: 'k:9092', sasl: { mechanism: 'gssapi', username: 'u', password: 'p' } })), /sasl\.mechanism must be plain, scram-sha-256, scram-sha-512, oauthbearer \(got "gssapi"\)/);
  assert.match(inputError(() => endpointFromExternal({ bootstrapServers: 'k:9092', sasl: { mechanism: 'oauthbearer' } })), /oauthbearer needs sasl\.principal/);
  assert.match(inputError(() => javaConnection(endpointFromExternal({ bootstrapServers: 'k:9093', ssl: { rejectUnauthorized: false } }))), /the Java client \(client java\) cannot skip certificate verification/);
  assert.match(inputError(() => endpointFromExternal({ bootstrapServers: 'k:9092', topic: { name: 'bad topic' } })), /topic\.name must be a topic name/);
});

test('the ledger of external runs records a connection by its address only: no user, password or key', () => {
  assert.equal(connectionAddress({ url: 'amqps://convoy:pw-in-url@mq.staging:5671/orders', tls: { passphrase: 'x' } }), '{"url":"amqps://mq.staging:5671/orders"}');
  assert.equal(connectionAddress({ bootstrapServers: 'k1:9093,k2:9093', sasl: { password: 'p' } }), '{"bootstrapServers":"k1:9093,k2:9093"}');
  assert.equal(connectionAddress({ connectionString: 'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=abc=' }), '{"connectionString":"Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=***"}');
});

test('clean --external leaves runs of another cluster, and names that are not convoy-<run-id>, alone and says so', async () => {
  const before = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = join(dir, 'state');
  try {
    const createdAt = new Date().toISOString();
    recordExternalRun({ runId: 'r-other', prefix: 'convoy-r-other', broker: 'kafka', where: '{"bootstrapServers":"other:9092"}', what: ['topic convoy-r-other'], createdAt });
    recordExternalRun({ runId: 'r-odd', prefix: 'orders', broker: 'kafka', where: '{"bootstrapServers":"k:9092"}', what: ['topic orders'], createdAt });
    const out: string[] = [];
    assert.equal(await cleanExternal({ external: ['bootstrapServers=k:9092'] }, (l) => out.push(l)), 0);
    assert.deepEqual(out.sort(), [
      'left alone: r-odd: its names do not start convoy-<run-id> (orders)',
      'left alone: r-other (kafka at {"bootstrapServers":"other:9092"}): another cluster than this connection\'s',
    ]);
    assert.deepEqual(externalRuns().map((e) => e.runId).sort(), ['r-odd', 'r-other'], 'their entries stay');
    for (const e of externalRuns()) forgetExternalRun(e.runId);
    const none: string[] = [];
    await cleanExternal({ external: [] }, (l) => none.push(l));
    assert.match(none[0]!, /^no external run left anything behind/);
  } finally {
    if (before === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = before;
  }
});

test('bad external Kafka settings are refused when the command starts (exit 2), the client\'s limits with the scenario\'s settings', async () => {
  const source = externalSource('external', { external: ['bootstrapServers=k:9092', 'ssl.rejectUnauthorized=false'] }, {})!;
  await source('kafka', { kind: 'kafka', client: 'kafkajs' });
  await assert.rejects(source('kafka', { kind: 'kafka', client: 'java' }), (e: Error) => e instanceof InputError && /client java\) cannot skip certificate verification/.test(e.message));
  await assert.rejects(externalSource('external', { external: ['bootstrapServers=k:9092', 'java.group.id=g'] }, {})!('kafka'), (e: Error) => e instanceof InputError && /java\.group\.id cannot be passed through/.test(e.message));
});
