import type { Command } from 'commander';
import { join } from 'node:path';
import { brokerNames, loadBroker } from '../../broker/registry.ts';
import { cacheDir } from '../../runtime/cache.ts';
import { listInstances, removeInstance, stopInstance } from '../../runtime/instances.ts';
import { stopByPidFile } from '../../runtime/process.ts';
import { InputError } from '../../errors.ts';
import { loadScenarioFile } from '../../scenario/load.ts';
import { scenarioCatalogue } from '../catalogue.ts';
import { cleanCommand } from './clean.ts';

/**
 * `convoy brokers up|down|status`: brokers that outlive one run. `up` starts them detached and
 * records them in the cache; later runs with a matching setup reuse them instead of starting
 * their own; `down` stops exactly the processes recorded.
 */
/** The brokers `brokers up` starts when none is named: all but the test doubles. */
async function standaloneBrokers(): Promise<string[]> {
  const mods = await Promise.all(brokerNames().map(loadBroker));
  return mods.filter((m) => !m.testDouble).map((m) => m.name);
}

export function register(program: Command): void {
  const brokers = program.command('brokers').description('start, stop and list brokers that outlive a run');

  brokers
    .command('up')
    .description('start brokers and leave them running for later runs (a second `up` reuses running ones)')
    .argument('[names...]', `brokers to start (${brokerNames().join(', ')}); default: every broker that runs as its own process`)
    .option('--scenario <file>', 'start the brokers with this scenario\'s broker settings (version, node count)')
    .action(async (names: string[], o: { scenario?: string }) => {
      const settingsList = o.scenario
        ? [(await loadScenarioFile(o.scenario, { catalogue: await scenarioCatalogue() })).broker]
        : (names.length ? names : await standaloneBrokers()).map((kind) => ({ kind }));
      for (const raw of settingsList) {
        const mod = await loadBroker(raw.kind);
        if (mod.testDouble) throw new InputError(`${mod.name} is a test double that lives inside the runner process; it cannot be started on its own`);
        const settings = mod.resolveSettings(raw);
        const t = Date.now();
        const d = await mod.deploy(
          { runtime: 'local', workDir: join(cacheDir('instances'), `${mod.name}-work`), cacheDir: cacheDir(), persistent: true, reuse: true, log: (l) => process.stderr.write(`${mod.name}: ${l}\n`) },
          settings,
        );
        process.stdout.write(`${mod.name}: up in ${((Date.now() - t) / 1000).toFixed(1)} s ${JSON.stringify(d.endpoint)}\n`);
      }
    });

  brokers
    .command('down')
    .description('stop brokers started with `convoy brokers up`')
    .argument('[names...]', 'only these brokers')
    .option('--all', 'also stop anything else convoy started that is still running (what a killed run left): `convoy clean`')
    .action(async (names: string[], o: { all?: boolean }) => {
      if (o.all) {
        if (names.length) throw new InputError('brokers down --all stops everything; name no brokers with it');
        return cleanCommand();
      }
      const list = listInstances().filter((i) => names.length === 0 || names.includes(i.record.broker));
      for (const { record } of list) {
        await stopInstance(record, stopByPidFile);
        removeInstance(record);
        process.stdout.write(`${record.key}: stopped\n`);
      }
      if (list.length === 0) process.stdout.write('no brokers recorded as running (`convoy clean` also stops what a killed run left)\n');
    });

  brokers
    .command('status')
    .description('list brokers started with `convoy brokers up`')
    .option('--json', 'as JSON')
    .action((o: { json?: boolean }) => {
      const list = listInstances();
      if (o.json) {
        process.stdout.write(JSON.stringify(list, null, 2) + '\n');
        return;
      }
      if (list.length === 0) process.stdout.write('no brokers recorded as running\n');
      for (const { record, alive } of list) {
        process.stdout.write(`${record.key}\t${alive ? 'running' : 'stale (processes gone)'}\tsince ${record.startedAt}\tpids ${record.pids.join(',')}\n`);
      }
    });

  brokers.hook('preAction', (_cmd, action) => {
    for (const n of (action.args as string[]) ?? []) {
      if (!brokerNames().includes(n)) throw new InputError(`unknown broker "${n}": expected one of ${brokerNames().join(', ')}`);
    }
  });
}
