import { openDatabase } from '../../consumer/entity-store.ts';
import { copyToSqlite } from '../../consumer/store/postgres.ts';
import { startPostgres } from '../../runtime/postgres.ts';
import type { Stage } from '../context.ts';

/**
 * The consumers' entity store when it is a PostgreSQL database (`consumers.store: postgres`):
 * a server of the run's own, its URL in every worker's init. At the end, after the consumers
 * stopped (undos run in reverse), its tables are copied into the run's state.sqlite, which the
 * analysis reads, and the server is stopped and its folder removed. It runs on the runner host;
 * consumers on agents reach it at this host's address as their agent sees it (placement.ts).
 */
export const store: Stage = {
  name: 'store',
  applies: (ctx) => ctx.scenario.consumers.store === 'postgres' && !ctx.scenario.consumers.service,
  async run(ctx) {
    const server = await startPostgres(ctx.log, { remote: ctx.placement?.consumerRunnerAddresses() });
    ctx.defer('stopping the PostgreSQL store', async () => {
      try {
        const db = openDatabase(ctx.record.storeFile);
        try {
          const copied = await copyToSqlite(server.url, db);
          ctx.log(`postgresql: copied ${copied.rows} rows of ${copied.tables} tables into ${ctx.record.storeFile}`);
        } finally {
          db.close();
        }
      } finally {
        await server.stop();
      }
    });
    ctx.mark('store-started', { kind: 'postgres', url: server.url.replace(/:[0-9a-f]+@/, '@'), pid: server.pid });
    ctx.initExtras.store = { kind: 'postgres', url: server.url };
  },
};
