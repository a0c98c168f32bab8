/**
 * Kafka's client in a process of its own (broker.clientProcess), on the Kafka the test suite
 * holds: the reference client (kafkajs in a child process) passes the client protocol's kit and
 * a whole run; a client process that writes a malformed line, or speaks another protocol
 * version, ends the run unknown with one clear line (the offending line and the process's last
 * log lines in the result), exit 3, never a hang. The broker contract's own cases run through
 * the reference client in conformance.test.ts.
 */
// @needs kafka
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBroker } from '../../../harness/broker/registry.ts';
import { referenceClientCommand, remoteProducer } from '../../../harness/client-protocol/remote-clients.ts';
import { runKit } from '../../../test/client-protocol/kit.ts';
import { convoy, onlyRunDir } from '../../../test/runner/helpers.ts';
import { kafkaForFile, runNames, settings } from './helpers.ts';

const kafka = kafkaForFile();
const FIXTURE = fileURLToPath(new URL('../../../test/client-protocol/fixtures/client.mjs', import.meta.url));

test('the reference client (kafkajs in a child process) passes the client protocol kit', { timeout: 180_000 }, async () => {
  const names = runNames('kit');
  const kafkaModule = await loadBroker('kafka');
  const admin = await kafkaModule.admin(kafka.dep.endpoint, settings(), names);
  await admin.createDestinations();
  try {
    const failures = await runKit({
      command: referenceClientCommand(),
      configure: (role, tag) => ({ role, id: `${role}-${tag}`, endpoint: kafka.dep.endpoint, settings: { ...settings() }, names, maxInFlight: 100 }),
      handshakeMs: 60_000,
    });
    assert.deepEqual(failures, {});
  } finally {
    await admin.deleteDestinations().catch(() => {});
    await admin.close();
  }
});

const scenario = (clientProcess: string) => `
name: client-process
broker: { kind: kafka, client: kafkajs, topic: { partitions: 3 }, clientProcess: ${clientProcess} }
workload: { keys: { count: 20 }, rate: { kind: fixed, perSecond: 100 }, durationMs: 3s, warmupMs: 0s }
consumers: { processes: 2 }
run: { drainTimeoutMs: 15s }
`;

async function run(clientProcess: string) {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-client-process-'));
  writeFileSync(join(dir, 's.yaml'), scenario(clientProcess));
  const r = await convoy(['run', join(dir, 's.yaml'), '--results', join(dir, 'results')], { timeoutMs: 150_000 });
  const result = JSON.parse(readFileSync(join(onlyRunDir(join(dir, 'results')), 'result.json'), 'utf8')) as Record<string, any>;
  return { ...r, result };
}

test('a run through the reference client passes, every client byte through its own process', { timeout: 180_000 }, async () => {
  const { code, result, stderr } = await run('{}');
  assert.equal(code, 0, stderr);
  assert.equal(result.verdict.status, 'pass', result.verdict.reasons.join('\n'));
  assert.equal(result.anomalies.lost.count, 0);
});

test('a client process that writes a malformed line: the run is unknown, with the line and its last log lines; exit 3', { timeout: 180_000 }, async () => {
  const { code, result } = await run(`{ command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(FIXTURE)}, malformed] }`);
  assert.equal(code, 3);
  assert.equal(result.verdict.status, 'unknown');
  const failure = result.harness.failure as { reason: string; detail?: string[] };
  assert.match(failure.reason, /malformed line \(not JSON\): this is not json/);
  assert.ok(failure.detail?.includes('fixture configured as producer'), JSON.stringify(failure));
});

test('a client of another protocol version: one clear line, exit 3', { timeout: 180_000 }, async () => {
  const { code, result, stdout, stderr } = await run(`{ command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(FIXTURE)}, version] }`);
  assert.equal(code, 3);
  assert.equal(result.verdict.status, 'unknown');
  assert.match(result.harness.failure.reason, /speaks client protocol version 99; this convoy speaks version 1/);
  assert.match(stdout + stderr, /run failed at consumers: .*client protocol version 99/);
});

test('a consumer under test needs convoy\'s fields in headers: a client process without the capability headers is refused at its first send with them, in one line', async () => {
  const producer = await remoteProducer([process.execPath, FIXTURE, 'none'], {}, { kind: 'fake' }, runNames('no-headers'), { id: 'p1', log: () => {} });
  try {
    assert.deepEqual(await producer.send({ key: 'k1', payload: Buffer.from('x') }), { lane: '0', offset: 0 });
    assert.throws(() => producer.send({ key: 'k1', payload: Buffer.from('x'), headers: { 'convoy-run': 'r1' } }), /consumers\.service: the client process .*client\.mjs none cannot put convoy's fields in headers \(no capability "headers" in its hello\)/);
  } finally {
    await producer.close();
  }
});
