/**
 * The conformance kit (kit.ts) against fake clients that each break one rule of the client
 * protocol: the compliant one passes every case, each broken one fails the matching case, with
 * the reason (the offending line, the process's last log lines), and nothing hangs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { ClientConnection } from '../../harness/client-protocol/connection.ts';
import { runKit, type KitTarget } from './kit.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/client.mjs', import.meta.url));
const fake = (breaks: string): KitTarget => ({
  command: [process.execPath, FIXTURE, breaks],
  configure: (role, tag) => ({ role, id: `${role}-${tag}`, endpoint: {}, settings: { kind: 'fake' }, names: { runId: tag, prefix: `convoy-${tag}` }, maxInFlight: 100 }),
  handshakeMs: 2_000,
});

test('a client that keeps every rule passes every case of the kit', async () => {
  assert.deepEqual(await runKit(fake('none')), {});
});

test('each broken rule fails its case, saying why', async () => {
  const cases: [string, string, RegExp][] = [
    ['silent', 'handshake', /no handshake within 2000 ms/],
    ['version', 'handshake', /speaks client protocol version 99; this convoy speaks version 1/],
    ['no-lane', 'send and ack', /ack 1 without lane or offset/],
    ['malformed', 'send and ack', /malformed line \(not JSON\): this is not json/],
    ['dies', 'send and ack', /exited \(code 7\)/],
    ['capabilities', 'capabilities', /not really/],
  ];
  for (const [breaks, name, why] of cases) {
    const failures = await runKit(fake(breaks), [name]);
    assert.match(failures[name] ?? 'passed', why, `${breaks}: ${JSON.stringify(failures)}`);
  }
});

test('a client that dies mid-run fails the connection with its last log lines; its log lines reach the worker\'s log', async () => {
  const logged: string[] = [];
  const c = await ClientConnection.open({ ...fake('dies'), configure: fake('dies').configure('producer', 'd'), log: (l) => logged.push(l), onFailure: () => {} });
  const failed = c.failed().catch((e: Error & { detail: string[] }) => e);
  c.write({ type: 'send', id: 1, key: 'k', payload: '' });
  const e = (await failed) as Error & { detail: string[] };
  assert.match(e.message, /exited \(code 7\)/);
  assert.ok(e.detail.includes('about to fall over'), e.detail.join(' | '));
  assert.ok(e.detail.includes('fixture configured as producer'));
  assert.ok(logged.includes('fixture configured as producer'), logged.join(' | '));
  await c.close();
});

test('a client that never answers close is stopped within the bound', async () => {
  const failures = await runKit(fake('close'), ['close']);
  assert.match(failures.close ?? 'passed', /close took \d+ ms/);
});
