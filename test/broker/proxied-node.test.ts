/**
 * The shared local runtime of the emulator modules: a one-process node behind a private
 * Toxiproxy, recorded for `brokers up`, found again (with the proxy reset), adopted and
 * restarted under a new pid, and stopped. The node is a tiny HTTP server (a real process).
 */
// @needs toxiproxy
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InfraError } from '../../harness/errors.ts';
import { ToxiproxyApi } from '../../harness/net/toxiproxy.ts';
import { loadInstance } from '../../harness/runtime/instances.ts';
import { freePort } from '../../harness/runtime/ports.ts';
import { pidAlive } from '../../harness/runtime/process.ts';
import { ProcessNode, type NodeProcess } from '../../harness/broker/process-node.ts';
import { findProxied, startProxied, type ProxiedNode } from '../../harness/broker/proxied-node.ts';

const KEY = `test-proxied-${process.pid}`;
const SERVER = `require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.argv[1]), '127.0.0.1')`;
const quiet = () => {};
let started: ProxiedNode<{ port: number; dir: string }> | undefined;
after(async () => started?.stop());

function httpNode(dir: string, port: number): NodeProcess {
  return {
    name: `http on ${port}`,
    command: () => process.execPath,
    args: ['-e', SERVER, String(port)],
    cwd: dir,
    logFile: join(dir, 'node.log'),
    pidFile: join(dir, 'node.pid'),
    healthy: async () => (await fetch(`http://127.0.0.1:${port}/`)).ok,
    startTimeoutMs: 15_000,
    pollMs: 50,
    stopGraceMs: 2_000,
    startFailure: (err) => new InfraError(`http node: ${err.message}`),
    started: () => 'http node up',
  };
}

/** A persistent node behind its proxy, recorded under KEY (kept in `started` for clean-up). */
async function startRecorded() {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-proxied-'));
  const [port, proxyPort] = [await freePort(), await freePort()];
  const node = new ProcessNode(httpNode(dir, port), true, quiet);
  started = await startProxied({
    broker: 'test', key: KEY, name: 'http node', node, nodePid: () => node.pid(), nodePidFile: join(dir, 'node.pid'), dir,
    ctx: { persistent: true, log: quiet },
    proxy: { name: 'http', port: proxyPort, upstream: port },
    ready: async () => ({ port, dir }),
  });
  return { dir, port, proxyPort, node, started: started! };
}

const get = async (port: number) => (await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2_000) })).text();

it('records a persistent node, finds it with the proxy reset, follows a restart, and stops it', { timeout: 60_000 }, async () => {
  const { dir, port, proxyPort, node, started: up } = await startRecorded();
  assert.equal(await get(proxyPort), 'ok', 'clients reach the node through the proxy');
  const rec = loadInstance(KEY);
  assert.deepEqual(rec?.pids[0], node.pid());
  assert.equal(rec?.data.proxyPort, proxyPort);

  // An interrupted run left the link cut with a toxic on it: finding the node undoes both.
  const api = new ToxiproxyApi(up.toxiproxyUrl);
  await api.addToxic('http', { name: 'slow', type: 'latency', stream: 'downstream', attributes: { latency: 5000 } });
  await api.setEnabled('http', false);
  const found = await findProxied<{ port: number; dir: string }>({
    key: KEY, proxyName: 'http', log: quiet, what: 'test', healthy: async (d) => (await get(d.port)) === 'ok',
  });
  assert.ok(found);
  assert.deepEqual(await api.describe('http').then((p) => [p.enabled, p.toxics.length]), [true, 0]);

  // Adopted by a later process, killed and started again: the record names the new pid.
  const adopted = ProcessNode.adopt(httpNode(dir, port), quiet);
  adopted.onStarted = () => found.rememberPid(adopted.pid());
  const oldPid = adopted.pid();
  assert.equal(oldPid, node.pid());
  await adopted.stop('SIGKILL');
  assert.equal(pidAlive(oldPid), false);
  await adopted.start();
  assert.notEqual(adopted.pid(), oldPid);
  assert.equal(loadInstance(KEY)?.pids[0], adopted.pid());
  assert.equal(await get(proxyPort), 'ok');
  await adopted.stop('SIGTERM');

  await up.stop();
  started = undefined;
  assert.equal(loadInstance(KEY), undefined, 'the record is dropped');
});

it('an unhealthy record is not reused', { timeout: 30_000 }, async () => {
  await startRecorded();
  const lines: string[] = [];
  const found = await findProxied({ key: KEY, proxyName: 'http', log: (l) => lines.push(l), what: 'test', healthy: async () => false });
  assert.equal(found, undefined);
  assert.match(lines.join('\n'), /recorded but not healthy/);
});
