/**
 * A worker process: a producer or a consumer of one run. Started by WorkerHandle with IPC;
 * everything it does goes to its own history file, and it exits when told to stop, when its
 * parent goes away, or after a fatal error (reported over IPC first).
 */
import { ConvoyError } from '../errors.ts';
import { settingsCheckedByRunner } from '../broker/settings-check.ts';
import type { FromWorker, Inbox, ToWorker, WorkerInit } from './protocol.ts';

type Run = (init: WorkerInit, inbox: Inbox, send: (m: FromWorker) => void) => Promise<void>;

/** Each role's entry point, loaded only in its own process. */
const ROLES: Record<WorkerInit['role'], () => Promise<Run>> = {
  producer: async () => (await import('./producer.ts')).runProducer,
  consumer: async () => (await import('./consumer.ts')).runConsumer,
  instance: async () => (await import('../gateway/instance.ts')).runInstance,
  router: async () => (await import('../gateway/router.ts')).runRouter,
  relay: async () => (await import('../gateway/relay.ts')).runRelay,
  load: async () => (await import('../gateway/load.ts')).runLoad,
};

function send(m: FromWorker): void {
  if (process.connected) process.send!(m);
}

process.on('disconnect', () => process.exit(0)); // the runner is gone: never linger

process.once('message', async (m: ToWorker) => {
  if (m.type !== 'init') return;
  const init: WorkerInit = m.init;
  const inbox: Inbox = (handler) => process.on('message', handler);
  // The runner resolved and checked every broker setting it hands over (init.settings).
  settingsCheckedByRunner();
  try {
    await (await ROLES[init.role]())(init, inbox, send);
    process.exit(0);
  } catch (err) {
    const e = err as Error;
    send({
      type: 'fatal',
      message: e.message,
      detail: err instanceof ConvoyError ? err.detail : (e.stack ?? '').split('\n').slice(1, 8),
      exitCode: err instanceof ConvoyError ? err.exitCode : 3,
    });
    process.stderr.write(`${init.id}: fatal: ${e.stack ?? e.message}\n`);
    setTimeout(() => process.exit(3), 100);
  }
});
