// @needs rabbitmq
/**
 * RabbitMQ's queue made beforehand (queue.name) on the external runtime, with a user that has
 * exactly the permissions docs/external.md lists for it (no configure rights), on a vhost of
 * its own on the suite's node, driven through `convoy run --runtime external --connection`:
 *   - without queue.name the run fails with one line naming queue.name;
 *   - with it the run passes; a leftover message of an earlier run in the queue is not this run's;
 *   - a missing queue, and a queue someone consumes already, are refused before the run (exit 2).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openConnection } from '../connection.ts';
import type { RabbitDeployment } from '../local.ts';
import { encodeMessage } from '../../../harness/workload/codec.ts';
import { startNode } from './helpers.ts';
import { runConvoy, said, type Ran } from '../../../test/helpers/convoy-cli.ts';

const VHOST = 'convoy-precreated-test';
const USER = 'convoy-limited';
const PASSWORD = 'Lq4-limited-user-pw';
const QUEUE = 'orders-convoy';

let dep: RabbitDeployment;
const dir = mkdtempSync(join(tmpdir(), 'convoy-rmq-precreated-'));
const results = join(dir, 'results');
const ctl = (...args: string[]) => promisify(execFile)(dep.endpoint.rabbitmqctl as string, ['-n', dep.endpoint.node as string, ...args], { timeout: 20_000 });
/** The node's own URL with another user and vhost. */
const urlFor = (user: string, password: string) => {
  const u = new URL(dep.endpoint.adminUrl as string);
  u.username = user;
  u.password = password;
  u.pathname = `/${encodeURIComponent(VHOST)}`;
  return u.toString();
};
/** The node's admin user, on the test's vhost: pre-creates the queue and looks at it. */
const asAdmin = () => {
  const admin = new URL(dep.endpoint.adminUrl as string);
  return openConnection({ url: urlFor(decodeURIComponent(admin.username), decodeURIComponent(admin.password)) }, { name: 'convoy-test-admin', heartbeatSeconds: 30 });
};

before(async () => {
  dep = await startNode();
  await ctl('delete_vhost', VHOST).catch(() => {});
  await ctl('add_vhost', VHOST);
  await ctl('delete_user', USER).catch(() => {});
  await ctl('add_user', USER, PASSWORD);
  // Exactly the line docs/external.md gives for a queue made beforehand.
  await ctl('set_permissions', '-p', VHOST, USER, '^$', `^${QUEUE}$`, `^${QUEUE}$`);
  const admin = new URL(dep.endpoint.adminUrl as string);
  await ctl('set_permissions', '-p', VHOST, decodeURIComponent(admin.username), '.*', '.*', '.*');
  const conn = await asAdmin();
  const ch = await conn.createChannel();
  await ch.assertQueue(QUEUE, { durable: true, arguments: { 'x-queue-type': 'classic', 'x-single-active-consumer': true } });
  // A leftover of an earlier run, on a key this run sends too.
  ch.sendToQueue(QUEUE, encodeMessage({ producer: 'orders-0', key: 'key-0', seq: 1, poison: false, run: 'earlier-run-20261205-000000-0000' }, 64), { headers: { 'convoy-key': 'key-0' } });
  await ch.close();
  await conn.close();
});

after(async () => {
  await ctl('delete_vhost', VHOST).catch(() => {});
  await ctl('delete_user', USER).catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

function scenario(name: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
seed: 7
broker: { kind: rabbitmq, topology: single-active }
workload:
  keys: { count: 10 }
  rate: { kind: fixed, perSecond: 100 }
  durationMs: 1s
  warmupMs: 0ms
  producers: [{ name: orders, processes: 1 }]
consumers: { processes: 1, handler: { kind: constant, ms: 0 } }
run: { drainTimeoutMs: 10s }
`,
  );
  return file;
}

function connection(name: string, extra = ''): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `kind: rabbitmq\nurl: amqp://${USER}:\${env:MQ_PASSWORD}@${new URL(urlFor(USER, PASSWORD)).host}/${VHOST}\nproxy: false\n${extra}`);
  return file;
}

const run = (file: string, conn: string) => runConvoy(['run', file, '--runtime', 'external', '--connection', conn, '--results', results], { MQ_PASSWORD: PASSWORD, XDG_STATE_HOME: join(dir, 'state') });

function resultOf(name: string, r: Ran): Record<string, any> {
  const folder = existsSync(results) ? readdirSync(results).find((n) => n.startsWith(`${name}-`) && existsSync(join(results, n, 'result.json'))) : undefined;
  assert.ok(folder, `the run's folder in ${results}:\n${said(r)}`);
  return JSON.parse(readFileSync(join(results, folder, 'result.json'), 'utf8'));
}

test('a user without configure rights: without queue.name one clear line; with it the run passes and an earlier run\'s leftover is not its own; a missing or busy queue is refused (exit 2)', async () => {
  const refused = await run(scenario('rmq-no-configure'), connection('limited'));
  process.stderr.write(`  run without configure rights: exit ${refused.code} in ${refused.ms} ms\n`);
  assert.notEqual(refused.code, 0);
  assert.match(refused.err, /declaring convoy-[^ ]+\.main and the run's other queues: not authorized \(ACCESS_REFUSED\).*queue\.name/, said(refused));

  const ok = await run(scenario('rmq-precreated'), connection('precreated', `queue:\n  name: ${QUEUE}\n`));
  process.stderr.write(`  run on the queue made beforehand: exit ${ok.code} in ${ok.ms} ms\n`);
  assert.equal(ok.code, 0, said(ok));
  const result = resultOf('rmq-precreated', ok);
  assert.equal(result.verdict.status, 'pass', said(ok));

  const conn = await asAdmin();
  try {
    const ch = await conn.createChannel();
    const q = await ch.checkQueue(QUEUE);
    assert.equal(q.messageCount, 0, 'the leftover was settled, not left in the queue');
    // Someone consuming the queue: a second run would compete with it, so it is refused.
    await ch.consume(QUEUE, () => {}, { noAck: false });
    const busy = await run(scenario('rmq-busy'), connection('busy', `queue:\n  name: ${QUEUE}\n`));
    assert.equal(busy.code, 2, said(busy));
    assert.match(busy.err, /queue\.name orders-convoy has 1 consumer\(s\) already .*one run at a time/, said(busy));
    await ch.close();
  } finally {
    await conn.close();
  }
  const missing = await run(scenario('rmq-missing'), connection('missing', 'queue:\n  name: orders-missing\n'));
  assert.equal(missing.code, 2, said(missing));
  assert.match(missing.err, /queue\.name orders-missing: no such queue/, said(missing));
  const lanes = join(dir, 'rmq-lanes.yaml');
  writeFileSync(lanes, readFileSync(scenario('rmq-lanes'), 'utf8').replace('topology: single-active', 'topology: hash-lanes'));
  const refusedLanes = await run(lanes, connection('lanes', `queue:\n  name: ${QUEUE}\n`));
  assert.equal(refusedLanes.code, 2, said(refusedLanes));
  assert.match(refusedLanes.err, /queue\.name orders-convoy with topology hash-lanes/, said(refusedLanes));
});
