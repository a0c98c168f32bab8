import type { Command } from 'commander';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopLeftovers } from '../../runtime/leftovers.ts';
import { externalRuns, forgetExternalRun, ledgerDir } from '../../runtime/external-ledger.ts';
import { cacheDir } from '../../runtime/cache.ts';
import { loadBroker } from '../../broker/registry.ts';
import { connectionAddress } from '../../broker/connection-address.ts';
import { redactString } from '../../checker/redact.ts';
import { InputError } from '../../errors.ts';
import { externalSource } from '../connection.ts';
import { CONNECTION_HELP } from '../external.ts';

/** Prints what was stopped (one line each) and what was left alone. */
export async function cleanCommand(out: (line: string) => void = (l) => process.stdout.write(l + '\n')): Promise<void> {
  const { stopped, leftAlone } = await stopLeftovers();
  for (const s of stopped) out(`stopped ${s.what}${s.pids.length ? `: pid ${s.pids.join(', ')}` : ''}`);
  for (const l of leftAlone) out(`left alone: ${l}`);
  if (stopped.length === 0) out('nothing convoy started is running');
}

/**
 * `convoy clean --external`: deletes what external runs created and did not delete (a run
 * killed mid-way, or --keep), as the ledger of external runs names it, on the cluster of the
 * connection given; an entry of another cluster or broker kind is left alone, and said so.
 * Only a run's own `convoy-<run-id>` names are ever deleted.
 */
export async function cleanExternal(flags: { external: string[]; connection?: string }, out: (line: string) => void = (l) => process.stdout.write(l + '\n')): Promise<number> {
  const entries = externalRuns();
  if (entries.length === 0) {
    out(`no external run left anything behind (${ledgerDir()} names none)`);
    return 0;
  }
  const source = externalSource('external', flags)!;
  const workDir = mkdtempSync(join(tmpdir(), 'convoy-clean-'));
  let failed = 0;
  try {
    for (const e of entries) {
      const names = { runId: e.runId, prefix: e.prefix };
      if (e.prefix !== `convoy-${e.runId}`) {
        out(`left alone: ${e.runId}: its names do not start convoy-<run-id> (${e.prefix})`);
        continue;
      }
      let external: Record<string, unknown>;
      try {
        external = await source(e.broker);
      } catch (err) {
        if (!(err instanceof InputError)) throw err;
        out(`left alone: ${e.runId} (${e.broker} at ${e.where}): ${err.message}`);
        continue;
      }
      if (connectionAddress(external) !== e.where) {
        out(`left alone: ${e.runId} (${e.broker} at ${e.where}): another cluster than this connection's`);
        continue;
      }
      try {
        const broker = await loadBroker(e.broker);
        const settings = broker.resolveSettings((e.settings as { kind: string } | undefined) ?? { kind: e.broker });
        const dep = await broker.deploy({ runtime: 'external', workDir, cacheDir: cacheDir(), external, log: () => {} }, settings);
        try {
          const admin = await broker.admin(dep.endpoint, settings, names);
          try {
            await admin.deleteDestinations();
          } finally {
            await admin.close().catch(() => {});
          }
        } finally {
          await dep.stop();
        }
        forgetExternalRun(e.runId);
        out(`deleted ${e.what.join(', ')} (run ${e.runId}, ${e.broker} at ${e.where})`);
      } catch (err) {
        failed++;
        out(`could not delete what run ${e.runId} created: ${redactString((err as Error).message)}`);
      }
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  return failed ? 1 : 0;
}

export function register(program: Command): void {
  program
    .command('clean')
    .description('stop everything convoy started that is still running: `brokers up` brokers and whatever a killed run left (same as `brokers down --all`); with --external, delete what external runs created and left (docs/external.md)')
    .option('--external [k=v]', 'delete the topics, queues and groups that runs on the external runtime created and did not delete (a killed run), on the cluster of this connection; with k=v, a connection setting as `convoy run --external` takes it (repeat it)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--connection <file|name>', CONNECTION_HELP)
    .action(async (o: { external?: string[] | true; connection?: string }) => {
      if (o.external === undefined) {
        if (o.connection) throw new InputError('--connection: only with --external');
        return cleanCommand();
      }
      const code = await cleanExternal({ external: o.external === true ? [] : o.external, connection: o.connection });
      if (code) process.exitCode = code;
    });
}
