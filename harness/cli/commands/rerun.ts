import type { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../../errors.ts';
import { parseScenario } from '../../scenario/load.ts';
import { scenarioCatalogue } from '../catalogue.ts';
import type { ScenarioSource } from '../../scenario/source.ts';
import { runAndAnalyze } from '../../runner/run-and-analyze.ts';
import { reportAfterRun } from '../../report/render.ts';
import { stringify } from 'yaml';
import { addRunOptions, type RunFlags } from './run.ts';
import { checkRuntime } from '../runtime-flag.ts';
import { externalSource } from '../connection.ts';

/**
 * `convoy rerun results/<run-id>`: the same scenario again, from what the run's result
 * recorded (the resolved scenario with its seed, so the same keys, sizes and poison choices).
 * Versions that differ from the recorded ones are reported before the run. Only the result is
 * read: neither the scenario file nor what it extends is needed (their text is passed on).
 */
export function register(program: Command): void {
  addRunOptions(
    program
      .command('rerun')
      .description('repeat a run from what its result.json recorded (resolved scenario, seed); reports version differences')
      .argument('<run-dir>', 'a run folder (results/<run-id>) or its result.json'),
  ).action(async (dir: string, o: RunFlags) => {
    const file = dir.endsWith('.json') ? dir : join(dir, 'result.json');
    if (!existsSync(file)) throw new InputError(`${file}: no result to rerun`);
    const result = JSON.parse(readFileSync(file, 'utf8')) as { scenario?: Record<string, unknown>; source?: ScenarioSource; versions?: { node?: string; convoy?: string; clients?: Record<string, string> } };
    if (!result.scenario) throw new InputError(`${file}: the result records no scenario`);
    // Checked again: the schema may have moved on since the run.
    const runtime = checkRuntime(o.runtime);
    const { scenario } = await parseScenario(stringify(result.scenario), { file, catalogue: await scenarioCatalogue(), target: { runtime, allowDestructive: Boolean(o.allowDestructive) } });
    const external = await externalSource(runtime, o)?.(scenario.broker.kind, scenario.broker);
    if (result.versions?.node && result.versions.node !== process.version) {
      process.stderr.write(`convoy: note: the run used node ${result.versions.node}; this is ${process.version}\n`);
    }
    process.exitCode = await runAndAnalyze(scenario, {
      runtime, resultsDir: resolve(o.results), resultsAsGiven: o.results, keep: Boolean(o.keep), allowDestructive: Boolean(o.allowDestructive),
      external,
      repeat: Number(o.repeat) || 1, quiet: Boolean(o.quiet), afterRun: reportAfterRun, source: result.source, reuseBrokers: o.reuseBrokers,
    });
  });
}
