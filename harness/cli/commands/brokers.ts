import type { Command } from 'commander';
import { join } from 'node:path';
import { brokerNames, loadBroker } from '../../broker/registry.ts';
import { cacheDir } from '../../runtime/cache.ts';
import { instancesDir, listInstances, removeInstance, stopInstance, type InstanceRecord } from '../../runtime/instances.ts';
import { stopByPidFile } from '../../runtime/process.ts';
import { watchGroup } from '../../runtime/reaper.ts';
import { onCleanup } from '../../runtime/cleanup.ts';
import type { BrokerSettings } from '../../broker/contract.ts';
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

/** The broker settings to start: a scenario's broker, or each named broker's defaults. */
async function settingsOf(names: string[], scenario: string | undefined): Promise<BrokerSettings[]> {
  if (scenario) return [(await loadScenarioFile(scenario, { catalogue: await scenarioCatalogue() })).broker];
  return (names.length ? names : await standaloneBrokers()).map((kind) => ({ kind }) as BrokerSettings);
}

/** Starts a broker detached and records it for reuse (a matching recorded one is reused). */
async function keepUp(raw: BrokerSettings): Promise<void> {
  const mod = await loadBroker(raw.kind);
  if (mod.testDouble) throw new InputError(`${mod.name} is a test double that lives inside the runner process; it cannot be started on its own`);
  const settings = mod.resolveSettings(raw);
  const t = Date.now();
  const d = await mod.deploy(
    { runtime: 'local', workDir: join(instancesDir(), `${mod.name}-work`), cacheDir: cacheDir(), persistent: true, reuse: true, log: (l) => process.stderr.write(`${mod.name}: ${l}\n`) },
    settings,
  );
  process.stdout.write(`${mod.name}: up in ${((Date.now() - t) / 1000).toFixed(1)} s ${JSON.stringify(d.endpoint)}\n`);
}

export function register(program: Command): void {
  const brokers = program.command('brokers').description('start, stop and list brokers that outlive a run');

  brokers
    .command('up')
    .description('start brokers and leave them running for later runs (a second `up` reuses running ones)')
    .argument('[names...]', `brokers to start (${brokerNames().join(', ')}); default: every broker that runs as its own process`)
    .option('--scenario <file>', 'start the brokers with this scenario\'s broker settings (version, node count)')
    .action(async (names: string[], o: { scenario?: string }) => {
      for (const raw of await settingsOf(names, o.scenario)) await keepUp(raw);
    });

  brokers
    .command('hold')
    .description('start brokers for other runs to reuse while this command runs; stop them when it ends (standard input closed, Ctrl-C or SIGTERM)')
    .argument('[names...]', `brokers to start (${brokerNames().join(', ')}); default: every broker that runs as its own process`)
    .option('--scenario <file>', 'start the brokers with this scenario\'s broker settings (version, node count)')
    .action(async (names: string[], o: { scenario?: string }) => {
      const held: InstanceRecord[] = [];
      const stopHeld = async () => {
        for (const rec of held.splice(0).reverse()) {
          await stopInstance(rec, stopByPidFile);
          removeInstance(rec);
          process.stdout.write(`${rec.key}: stopped\n`);
        }
      };
      // A signal, or an error while a later broker starts, stops the ones already up.
      onCleanup('stop the held brokers', stopHeld);
      for (const raw of await settingsOf(names, o.scenario)) {
        const before = new Set(listInstances().map((i) => i.record.key));
        await keepUp(raw);
        for (const { record } of listInstances()) {
          if (before.has(record.key)) continue;
          held.push(record);
          // Recorded brokers are spared by the reaper; these are watched again, so they stop
          // with this process even when it is killed.
          for (const pid of record.pids) watchGroup(pid, record.key);
        }
      }
      process.stdout.write(`holding ${held.map((r) => r.key).join(', ') || 'nothing new'}; close standard input or press Ctrl-C to stop\n`);
      await new Promise<void>((done) => {
        process.stdin.on('end', done).on('close', done).on('error', done).resume();
      });
      await stopHeld();
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
