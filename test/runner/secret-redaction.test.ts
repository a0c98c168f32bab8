/**
 * No secret in anything a run writes or says. One short memory-broker run whose deployment
 * carries an external cluster's kind of connection (a URL with a password, a SASL password, an
 * inline TLS key under a name that is no secret's, and a value given as ${env:…}), as a real
 * external deployment's endpoint does; then every file of the run folder (result.json,
 * record.json, run.log, history, report.html, ...) and every line the run said is searched for
 * the secret values.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';
import { loadScenarioFile } from '../../harness/scenario/load.ts';
import { loadBroker } from '../../harness/broker/registry.ts';
import { executeRun } from '../../harness/runner/run.ts';
import { analyzeRun } from '../../harness/runner/analyze.ts';
import { reportAfterRun } from '../../harness/report/render.ts';
import { resolveExternal } from '../../harness/cli/connection.ts';
import { EXTERNAL_SETTINGS as KAFKA } from '../../brokers/kafka/endpoint.ts';
import { clearRegisteredSecrets } from '../../harness/checker/redact.ts';

const URL_PASSWORD = 'hunter2-url-pw';
const SASL_PASSWORD = 'env-ref-sasl-pw';
const KEY_BODY = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

test('a run with secrets in its connection writes and says none of them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-secrets-'));
  const file = join(dir, 'secrets.yaml');
  writeFileSync(file, `
name: secret-redaction
seed: 3
broker: { kind: memory, mode: partitioned, partitions: 2 }
workload:
  keys: { count: 5 }
  rate: { kind: fixed, perSecond: 50 }
  durationMs: 1s
  warmupMs: 0ms
consumers: { processes: 1, handler: { kind: constant, ms: 0 } }
run: { settleMs: 200ms }
`);
  // The settings as the CLI resolves them: the SASL password from the environment, by reference.
  const external = resolveExternal({
    kind: 'kafka', settings: KAFKA, env: { CONVOY_TEST_SASL: SASL_PASSWORD },
    pairs: ['bootstrapServers=127.0.0.1:9', 'sasl.mechanism=plain', 'sasl.username=u', 'sasl.password=${env:CONVOY_TEST_SASL}'],
    warn: () => {},
  });
  const scenario = await loadScenarioFile(file, { catalogue: await scenarioCatalogue(), onWarning: () => {} });
  const memory = await loadBroker('memory');
  const live = await memory.deploy({ runtime: 'local', workDir: dir, cacheDir: dir, log: () => {}, reuse: false }, memory.resolveSettings(scenario.broker));
  const said: string[] = [];
  try {
    const record = await executeRun(scenario, {
      runtime: 'local', resultsDir: dir, keep: false, allowDestructive: false, external, progress: false,
      log: (line) => said.push(line),
      deployment: {
        ...live,
        endpoint: {
          ...live.endpoint,
          url: `amqps://svc:${URL_PASSWORD}@mq.staging:5671/orders`,
          sasl: external.sasl,
          ssl: { key: `-----BEGIN PRIVATE KEY-----\n${KEY_BODY}\n-----END PRIVATE KEY-----` },
        },
      },
    });
    const result = await analyzeRun(record);
    await reportAfterRun(result, record.runDir);
    assert.notEqual(result.verdict.status, 'unknown', `the run completed: ${result.verdict.reasons.join('; ')}`);
    const files = filesUnder(record.runDir);
    for (const name of ['result.json', 'record.json', 'run.log', 'report.html']) assert.ok(files.some((f) => f.endsWith(name)), `${name} written`);
    const endpoint = JSON.parse(readFileSync(join(record.runDir, 'result.json'), 'utf8')).environment?.endpoint ?? JSON.parse(readFileSync(join(record.runDir, 'record.json'), 'utf8')).deployment.endpoint;
    assert.equal(endpoint.url, 'amqps://svc:***@mq.staging:5671/orders', 'the endpoint is recorded, redacted');
    for (const path of files) {
      const text = readFileSync(path).toString('latin1');
      for (const secret of [URL_PASSWORD, SASL_PASSWORD, KEY_BODY]) assert.ok(!text.includes(secret), `${path} shows a secret`);
    }
    for (const secret of [URL_PASSWORD, SASL_PASSWORD, KEY_BODY]) assert.ok(!said.join('\n').includes(secret), 'the run said a secret');
  } finally {
    await live.stop();
    clearRegisteredSecrets();
  }
});
