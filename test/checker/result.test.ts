/** The result envelope against results/schema/result.v1.json, and secret redaction. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { checkFile } from '../../harness/checker/readFile.ts';
import { evaluateExpectations, parseExpectSpec } from '../../harness/checker/expectations.ts';
import { buildResult, checkSection, redactSecrets, RESULT_SCHEMA } from '../../harness/checker/result.ts';

const schema = JSON.parse(readFileSync(new URL('../../results/schema/result.v1.json', import.meta.url), 'utf8')) as object;
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true, validateFormats: false });
const validate = ajv.compile(schema);
const GOLDEN = new URL('./golden/', import.meta.url).pathname;

function errors(): string {
  return ajv.errorsText(validate.errors);
}

async function resultFor(name: string, spec = '') {
  const outcome = await checkFile(join(GOLDEN, name));
  const { expectations, verdict } = evaluateExpectations(outcome, parseExpectSpec(spec));
  return buildResult({
    run: {
      runId: 'r-1',
      seed: 7,
      scenario: { name: 'demo', broker: { kind: 'kafka', sasl: { username: 'u', password: 'hunter2' } } },
      versions: { brokers: { kafka: '3.9.0' }, clients: { kafkajs: '2.2.4' } },
      started: '2026-01-01T00:00:00.000Z',
      finished: '2026-01-01T00:01:00.000Z',
    },
    verdict,
    anomalies: outcome.anomalies,
    expectations,
    check: checkSection(outcome, name),
    sections: { workload: { sent: 10 }, environment: { endpoint: 'amqp://guest:guest@localhost:5672' } },
  });
}

test('every golden history gives a result that validates against the schema', async () => {
  const names = readdirSync(GOLDEN).filter((f) => f.endsWith('.jsonl'));
  assert.ok(names.length >= 19);
  for (const name of names) {
    const r = await resultFor(name, name === 'fault-window.jsonl' ? 'reorder@stall-c1=>0,gap@nosuch=0' : '');
    assert.ok(validate(r), `${name}: ${errors()}`);
  }
});

test('the envelope: identity, redaction of scenario and sections, JSON round trip', async () => {
  const r = await resultFor('reorder.jsonl');
  assert.equal(r.schema, RESULT_SCHEMA);
  assert.equal(r.runId, 'r-1');
  assert.equal(r.versions.convoy, JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
  assert.equal(r.versions.node, process.version);
  assert.deepEqual((r.scenario as { broker: { sasl: unknown } }).broker.sasl, { username: 'u', password: '***' });
  assert.deepEqual(r.environment, { endpoint: 'amqp://guest:***@localhost:5672' });
  assert.equal(r.verdict.status, 'fail');
  assert.deepEqual(JSON.parse(JSON.stringify(r)), r);
  assert.throws(() => buildResult({ verdict: r.verdict, anomalies: r.anomalies, expectations: [], sections: { verdict: {} } }), /overwrite/);
  const bare = buildResult({ verdict: r.verdict, anomalies: r.anomalies, expectations: r.expectations });
  assert.ok(validate(bare), errors());
  assert.equal(bare.runId, null);
});

test('the schema rejects malformed results', async () => {
  const good = await resultFor('lost.jsonl');
  const broken: [string, (r: Record<string, any>) => void][] = [
    ['wrong schema id', (r) => (r.schema = 'convoy.result.v2')],
    ['verdict status', (r) => (r.verdict.status = 'maybe')],
    ['missing anomaly type', (r) => delete r.anomalies.gap],
    ['unknown anomaly type', (r) => (r.anomalies.weird = { count: 0, keys: 0, examples: [] })],
    ['negative count', (r) => (r.anomalies.lost.count = -1)],
    ['example without note', (r) => delete r.anomalies.lost.examples[0].note],
    ['expectation value', (r) => (r.expectations[0].expected = '1')],
    ['section not an object', (r) => (r.latency = 5)],
    ['missing versions', (r) => delete r.versions],
  ];
  for (const [what, mutate] of broken) {
    const r = JSON.parse(JSON.stringify(good));
    mutate(r);
    assert.equal(validate(r), false, what);
  }
});

test('redactSecrets: secret field names, connection strings and URL passwords', () => {
  const input = {
    password: 'p1',
    db: { PASSWORD: 'p2', passwd: 'p3', user: 'admin', port: 5432 },
    sasl: { mechanism: 'scram-sha-512', username: 'u', password: 'p4' },
    saslPassword: 'p5',
    SASL_PASSWORD: 'p6',
    aws: { accessKeyId: 'AKIA', secretAccessKey: 'S3CR3T', sessionToken: 'tok', region: 'eu-west-1' },
    clientSecret: 'cs',
    apiKey: 'ak',
    token: 'tk',
    credentials: { anything: 'x', nested: ['y'] },
    pin: 1234,
    servicebus: 'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=abc+def/ghi=;EntityPath=q',
    storage: 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFy==;EndpointSuffix=core.windows.net',
    sas: 'https://acct.blob.core.windows.net/c?sv=2020&sig=SIGNATURE&se=2030',
    amqp: 'amqp://guest:s3cret@rabbit:5672/vhost',
    amqps: ['amqps://user:p@ss@host', 'amqp://host:5672/vhost', 'kafka://broker:9092'],
    // Not secrets:
    tokenBucket: { rate: 5 },
    maxTokens: 3,
    keyCount: 10,
    usePassword: true,
    passwordFile: '/run/secrets/pw',
    empty: { password: '' },
    nothing: null,
  };
  const frozen = JSON.stringify(input);
  const out = redactSecrets(input);
  assert.equal(JSON.stringify(input), frozen, 'input unchanged');
  assert.deepEqual(out, {
    password: '***',
    db: { PASSWORD: '***', passwd: '***', user: 'admin', port: 5432 },
    sasl: { mechanism: 'scram-sha-512', username: 'u', password: '***' },
    saslPassword: '***',
    SASL_PASSWORD: '***',
    aws: { accessKeyId: '***', secretAccessKey: '***', sessionToken: '***', region: 'eu-west-1' },
    clientSecret: '***',
    apiKey: '***',
    token: '***',
    credentials: { anything: '***', nested: ['***'] },
    pin: 1234,
    servicebus: 'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=***;EntityPath=q',
    storage: 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=***;EndpointSuffix=core.windows.net',
    sas: 'https://acct.blob.core.windows.net/c?sv=2020&sig=***&se=2030',
    amqp: 'amqp://guest:***@rabbit:5672/vhost',
    amqps: ['amqps://user:***@host', 'amqp://host:5672/vhost', 'kafka://broker:9092'],
    tokenBucket: { rate: 5 },
    maxTokens: 3,
    keyCount: 10,
    usePassword: true,
    passwordFile: '/run/secrets/pw',
    empty: { password: '' },
    nothing: null,
  });
  const cyclic: Record<string, unknown> = { password: 'x' };
  cyclic.self = cyclic;
  const c = redactSecrets(cyclic) as Record<string, unknown>;
  assert.equal(c.password, '***');
  assert.equal(c.self, c);
});
