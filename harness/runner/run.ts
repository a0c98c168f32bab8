/**
 * One run of one scenario, as a list of stages (harness/runner/stages/, one job each) over a
 * shared context (context.ts). Each stage registers what undoes it; whatever way the run ends,
 * those are undone in reverse order and the processes' histories merged. Returns the run's
 * record: the analysis (checker, metrics, verdict) is separate, so that it can be repeated
 * offline from the run's files.
 */
import type { Scenario } from '../spec/types.ts';
import { debugDetail } from '../verbosity.ts';
import { openRun, type RunContext, type Stage } from './context.ts';
import type { RunOptions, RunRecord, RunStage } from './record.ts';
import { setup } from './stages/setup.ts';
import { deploy } from './stages/deploy.ts';
import { provision } from './stages/provision.ts';
import { agents } from './stages/agents.ts';
import { owner } from './stages/owner.ts';
import { store } from './stages/store.ts';
import { consumers } from './stages/consumers.ts';
import { gateway } from './stages/gateway.ts';
import { producers } from './stages/producers.ts';
import { start } from './stages/start.ts';
import { faults } from './stages/faults.ts';
import { produce } from './stages/produce.ts';
import { faultWindows } from './stages/fault-windows.ts';
import { drain } from './stages/drain.ts';
import { serviceState } from './stages/service-state.ts';

export type { RunOptions, RunRecord, RunStage };

/** The stages in the order they run; an optional one says when it applies. */
export const STAGES: readonly Stage[] = [
  setup, // what the machine needs; the fault kinds
  deploy, // the broker
  provision, // the run's destinations
  agents, // convoy agents on other hosts, when the run has any
  owner, // the entities' owner service, when used
  store, // the consumers' PostgreSQL store, when the scenario asks for one
  consumers, // c1..cN, holding their lanes before the first message
  gateway, // an order service that publishes instead of the producers, when configured
  producers,
  start, // the shared start instant
  faults, // the timeline, armed at the measured phase
  produce, // until the plan is sent
  faultWindows, // the windows close; every fault undone
  drain, // until every acked message is processed, or the broker has nothing more
  serviceState, // a consumer under test's final state, when it says how to ask
];

export async function executeRun(scenario: Scenario, opts: RunOptions): Promise<RunRecord> {
  const ctx = await openRun(scenario, opts);
  await runStages(ctx, STAGES);
  return ctx.record;
}

/** Runs the stages in order until one fails (the run is then incomplete), then closes the run. */
export async function runStages(ctx: RunContext & { close(): Promise<void> }, stages: readonly Stage[]): Promise<void> {
  let current: RunStage = 'setup';
  try {
    for (const stage of stages) {
      current = stage.name;
      if (stage.applies && !(await stage.applies(ctx))) continue;
      await stage.run(ctx);
    }
  } catch (err) {
    failed(ctx, current, err as Error);
  } finally {
    await ctx.close();
  }
}

/** Kept, not thrown: the partial history is still analysed, and the verdict will be unknown. */
function failed(ctx: RunContext, stage: RunStage, err: Error): void {
  ctx.record.failure = err;
  ctx.record.failedStage = stage;
  ctx.record.incomplete.push(`${stage}: ${err.message}`);
  // The stack goes to run.log only; the console gets the one line (CONVOY_DEBUG=1 for more).
  ctx.logStream.write(`${new Date().toISOString()} run failed at ${stage}: ${err.stack ?? err.message}\n`);
  ctx.opts.log?.(`run failed at ${stage}: ${debugDetail(err)}`);
}
