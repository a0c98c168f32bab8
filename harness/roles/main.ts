/**
 * A worker process: a producer or a consumer of one run. Started by WorkerHandle with its
 * stream to the runner on file descriptor 3 (harness/workers/runner-channel.ts); everything it
 * does goes to its own history file, and it exits when its run ends, when its runner goes away
 * (the stream ends), or after a fatal error (reported to the runner first). A process the runner
 * marked reusable (harness/workers/pool.ts) whose run left nothing alive
 * (harness/workers/open-handles.ts) reports `idle` instead of exiting and takes the next run's init.
 */
import { ConvoyError, InfraError } from '../errors.ts';
import { settingsCheckedByRunner } from '../broker/settings-check.ts';
import { leftovers, processSnapshot } from '../workers/open-handles.ts';
import { stopLoopLagMeters } from '../workers/loop-lag.ts';
import type { FromWorker, Inbox, ToWorker, WorkerInit } from '../workers/protocol.ts';
import { openRunnerChannel } from '../workers/runner-channel.ts';

type Run = (init: WorkerInit, inbox: Inbox, send: (m: FromWorker) => void) => Promise<void>;

/** Each role's entry point, loaded only in its own process. */
const ROLES: Record<WorkerInit['role'], () => Promise<Run>> = {
  producer: async () => (await import('./producer.ts')).runProducer,
  consumer: async () => (await import('./consumer/run.ts')).runConsumer,
  instance: async () => (await import('../gateway/instance.ts')).runInstance,
  router: async () => (await import('../gateway/router.ts')).runRouter,
  relay: async () => (await import('../gateway/relay.ts')).runRelay,
  load: async () => (await import('../gateway/load-driver.ts')).runLoad,
};

let current: WorkerInit | undefined;

const runner = openRunnerChannel({
  // A malformed line from the runner, or a refused hello, ends this worker with the reason.
  onFailure: (reason) => fatal(new InfraError(reason)),
  onGone: () => process.exit(0), // the runner is gone: never linger
});

function send(m: FromWorker): void {
  runner.send(m);
}

/** Exits once what this worker wrote has reached the runner. */
function exit(code: number): void {
  void runner.close().then(() => process.exit(code));
}

let busy = false;
runner.on((m: ToWorker) => {
  if (m.type !== 'init' || busy) return;
  busy = true;
  void runOne(m.init, m.reusable === true).then((idle) => {
    busy = !idle;
  });
});

let ending = false;
/** Reports the error that ends this worker's role to the runner, then exits. */
function fatal(err: unknown): void {
  if (ending) return;
  ending = true;
  const e = err as Error;
  send({
    type: 'fatal',
    message: e.message,
    detail: err instanceof ConvoyError ? err.detail : (e.stack ?? '').split('\n').slice(1, 8),
    exitCode: err instanceof ConvoyError ? err.exitCode : 3,
  });
  process.stderr.write(`${current?.id ?? 'worker'}: fatal: ${err instanceof ConvoyError ? e.message : (e.stack ?? e.message)}\n`);
  exit(3);
}

// An error thrown outside the role's own awaits (a client process that failed mid-run) ends the
// worker the same way: the runner hears why.
process.on('uncaughtException', (err) => fatal(err));

/** One run's role; true when the process stays for another (idle), else it is exiting. */
async function runOne(init: WorkerInit, reusable: boolean): Promise<boolean> {
  current = init;
  const before = reusable ? processSnapshot() : undefined;
  // The role's own message handlers, removed when it is done: the next run must not hear them.
  const handlers: ((m: ToWorker) => void)[] = [];
  const inbox: Inbox = (handler) => {
    handlers.push(handler);
    runner.on(handler);
  };
  // The runner resolved and checked every broker setting it hands over (init.settings).
  settingsCheckedByRunner();
  try {
    // A consumer under test (consumers.service) in place of convoy's own: this process runs the team's service.
    const role = init.role === 'consumer' && init.scenario.consumers.service ? (await import('./service/run.ts')).runService : await ROLES[init.role]();
    await role(init, inbox, send);
  } catch (err) {
    fatal(err);
    return false;
  }
  for (const h of handlers) runner.off(h);
  stopLoopLagMeters();
  const left = before ? await leftovers(before) : [];
  if (before && left.length === 0) {
    send({ type: 'idle' });
    return true;
  }
  if (before) send({ type: 'log', line: `not reused: its run left ${left.join(', ')}` });
  exit(0);
  return false;
}
