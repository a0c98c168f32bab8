import type { BrokerAdmin } from '../../broker/contract.ts';
import { nowMicros } from '../../clock.ts';
import type { RemainingEvent } from '../../history/events.ts';
import type { Stage } from '../context.ts';
import { connectionAddress } from '../../broker/connection-address.ts';
import { redactSecrets } from '../../checker/redact.ts';
import { forgetExternalRun, recordExternalRun } from '../../runtime/external-ledger.ts';

/**
 * The run's destinations (named convoy-<run-id>), created before any worker starts. At the end,
 * once every worker has stopped and committed and before the destinations go, the broker is asked
 * what it still holds for the run: the checker's evidence for lost against unseen.
 */
export const provision: Stage = {
  name: 'provision',
  async run(ctx) {
    const external = ctx.opts.runtime === 'external';
    ctx.defer('deleting destinations', async () => {
      if (ctx.record.startUs > 0) ctx.history.write(await askRemaining(ctx.admin, ctx.log));
      const admin = ctx.admin;
      if (!admin) return;
      try {
        if (!ctx.opts.keep) {
          await admin.deleteDestinations();
          if (external) forgetExternalRun(ctx.names.runId);
        }
      } finally {
        await admin.close().catch(() => {});
      }
    });
    ctx.admin = await ctx.broker.admin(ctx.deployment!.endpoint, ctx.settings, ctx.names);
    // On a cluster convoy does not own, what the run creates is written down first: a run killed
    // mid-way leaves the entry, and `convoy clean --external` deletes what it names.
    if (external) {
      recordExternalRun({
        runId: ctx.names.runId,
        prefix: ctx.names.prefix,
        broker: ctx.scenario.broker.kind,
        where: connectionAddress(ctx.opts.external),
        what: ctx.admin.created?.() ?? [`destinations named ${ctx.names.prefix}*`],
        // No credential in the ledger: a scenario's broker section may carry a URL with a password.
        settings: redactSecrets(ctx.settings) as Record<string, unknown>,
        createdAt: new Date().toISOString(),
      });
    }
    await ctx.admin.createDestinations();
    ctx.mark('destinations-created');
  },
};

/** BrokerAdmin.remaining as a history event; a broker that cannot be asked says so. */
async function askRemaining(admin: BrokerAdmin | undefined, log: (line: string) => void): Promise<RemainingEvent> {
  const at = nowMicros();
  if (!admin) return { type: 'remaining', at, known: false, total: null, reason: 'no broker admin (the run failed before its destinations existed)' };
  if (!admin.remaining) return { type: 'remaining', at, known: false, total: null, reason: 'this broker cannot report what it still holds' };
  let timer: NodeJS.Timeout | undefined;
  try {
    const r = await Promise.race([
      admin.remaining(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer within 15 s')), 15_000);
      }),
    ]);
    log(`the broker still holds ${r.known ? r.total : 'an unknown number of'} message(s) for the run`);
    return { type: 'remaining', at, known: r.known, total: r.known ? r.total : null, lanes: r.lanes, detail: r.detail, reason: r.reason };
  } catch (err) {
    log(`asking the broker what it still holds: ${(err as Error).message}`);
    return { type: 'remaining', at, known: false, total: null, reason: `the broker could not be asked: ${(err as Error).message}` };
  } finally {
    clearTimeout(timer);
  }
}
