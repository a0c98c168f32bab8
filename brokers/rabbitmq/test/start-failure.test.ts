/**
 * A node that cannot start (its AMQP port is taken) fails with an InfraError carrying the
 * node's log lines, and leaves nothing running: no node, no Toxiproxy, no epmd registration.
 */
// @needs own rabbitmq
import { reaperProcess } from '../../../harness/runtime/reaper.ts';
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deployLocal } from '../local.ts';
import { resolveSettings } from '../settings.ts';
import { InfraError } from '../../../harness/errors.ts';
import { pidAlive } from '../../../harness/runtime/process.ts';
import { runCleanup } from '../../../harness/runtime/cleanup.ts';
import { quiet } from './helpers.ts';

let blocker: Server | undefined;
after(async () => {
  blocker?.close();
  await runCleanup();
});

/** Processes whose parent chain leads to this test process (esbuild's service excluded). */
function descendants(): string[] {
  const parent = new Map<number, number>();
  const name = new Map<number, string>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const [, comm = '', rest = ''] = /\((.*)\) (.*)/.exec(stat) ?? [];
      const fields = rest.split(' ');
      // A zombie is gone; the harness's own reaper lives as long as the harness (the test process).
      if (fields[0] === 'Z' || Number(d) === reaperProcess()) continue;
      parent.set(Number(d), Number(fields[1]));
      name.set(Number(d), comm);
    } catch {
      /* gone */
    }
  }
  const out: string[] = [];
  for (const pid of parent.keys()) {
    for (let p = parent.get(pid); p && p > 1; p = parent.get(p)) {
      if (p === process.pid) {
        if (!/esbuild/.test(name.get(pid) ?? '')) out.push(`${pid} ${name.get(pid)}`);
        break;
      }
    }
  }
  return out;
}

it('a node whose AMQP port is taken gives an InfraError with log lines and leaves nothing running', { timeout: 90_000 }, async () => {
  blocker = createServer();
  await new Promise<void>((r) => blocker!.listen(0, '127.0.0.1', r));
  const port = (blocker.address() as { port: number }).port;
  const workDir = mkdtempSync(join(tmpdir(), 'convoy-rmq-fail-'));
  const settings = resolveSettings({ kind: 'rabbitmq' });

  const err = await deployLocal({ runtime: 'local', workDir, cacheDir: '', log: quiet, reuse: false }, settings, { ports: { amqp: port } }).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof InfraError, `expected an InfraError, got ${String(err)}`);
  assert.equal(err.exitCode, 3);
  assert.match(err.message, new RegExp(`convoy-${port}@localhost`));
  assert.ok(
    err.detail.some((l) => /could_not_start_listener|eaddrinuse/i.test(l)),
    `log lines name the cause:\n${err.detail.join('\n')}`,
  );

  assert.deepEqual(descendants(), [], 'no process of ours is left');
  const vmPidFile = join(workDir, 'rabbitmq', 'data', 'beam.pid');
  if (existsSync(vmPidFile)) assert.equal(pidAlive(Number(readFileSync(vmPidFile, 'utf8'))), false, 'the Erlang VM is gone');
  const epmd = execFileSync('sh', ['-c', 'epmd -names 2>/dev/null || /usr/lib/erlang/erts-*/bin/epmd -names 2>/dev/null || true'], { encoding: 'utf8' });
  assert.doesNotMatch(epmd, new RegExp(`name convoy-${port} `), 'the node is not registered in epmd');
  assert.ok(!existsSync(join(workDir, 'rabbitmq', 'toxiproxy.pid')), 'toxiproxy stopped');
});
