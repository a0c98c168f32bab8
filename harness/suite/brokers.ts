/**
 * Brokers kept up across a suite (local runtime), as `convoy brokers up` keeps them: before
 * each scenario the suite deploys its broker persistently with reuse, so a matching broker
 * already up is reused and otherwise one is started and recorded; the run, deploying with
 * reuse, then finds it instead of starting its own. When a scenario needs another setup of a
 * broker kind, the suite's earlier brokers of that kind are stopped. At the end the suite
 * stops the brokers it started; brokers that were up before the suite are left running.
 * Any failure here only costs the reuse: the run then starts a broker of its own.
 */
import { join } from 'node:path';
import { loadBroker } from '../broker/registry.ts';
import { ensureRequirements } from '../setup/install.ts';
import { needsOf } from '../setup/setup.ts';
import { cacheDir } from '../runtime/cache.ts';
import { instancesDir, listInstances, markStartedBySuite, removeInstance, reusableHere } from '../runtime/instances.ts';
import { stopByPidFile } from '../runtime/process.ts';
import type { Scenario } from '../spec/types.ts';

function aliveKeys(): Map<string, string> {
  return new Map(listInstances().filter((i) => i.alive && reusableHere(i.record)).map((i) => [i.record.key, i.record.broker]));
}

export class SuiteBrokers {
  /** Instance key -> broker kind, for the brokers this suite started. */
  private readonly started = new Map<string, string>();

  /**
   * `keepEarlier`: keep every setup started so far up until stopAll (a matrix interleaves cells
   * that may need different setups of one broker; restarting on each switch would cost more).
   */
  constructor(
    private readonly log: (line: string) => void,
    private readonly keepEarlier = false,
  ) {}

  /** Makes sure the scenario's broker is up and recorded for reuse. */
  async prepare(scenario: Scenario): Promise<void> {
    let kind = scenario.broker.kind;
    try {
      const mod = await loadBroker(kind);
      kind = mod.name;
      // Installed here when we can; when we cannot, the run itself says so, with its result.
      try {
        ensureRequirements(needsOf([mod], false), (l) => this.log(`  setup: ${l}`));
      } catch {
        return;
      }
      const settings = mod.resolveSettings(scenario.broker);
      const before = aliveKeys();
      await mod.deploy(
        { runtime: 'local', workDir: join(instancesDir(), `${mod.name}-work`), cacheDir: cacheDir(), persistent: true, reuse: true, log: (l) => this.deployLog(mod.name, l) },
        settings,
      );
      const fresh = [...aliveKeys()].filter(([key]) => !before.has(key));
      for (const [key, broker] of fresh) {
        this.started.set(key, broker);
        markStartedBySuite(key);
        this.log(`  ${key}: started for the suite`);
      }
      if (fresh.length > 0 && !this.keepEarlier) {
        const keep = new Set(fresh.map(([key]) => key));
        for (const [key, broker] of [...this.started]) if (broker === kind && !keep.has(key)) await this.stop(key);
      }
    } catch (err) {
      this.log(`  could not keep a ${kind} broker up for the suite (${(err as Error).message.split('\n')[0]}); the run starts its own`);
    }
  }

  /** The suite's deploy says what it starts; that it reuses one, the run says itself. */
  private deployLog(broker: string, line: string): void {
    if (/\breusing\b/.test(line)) return;
    this.log(`  ${line.startsWith(`${broker}:`) ? line : `${broker}: ${line}`}`);
  }

  /** Stops every broker this suite started. */
  async stopAll(): Promise<void> {
    for (const key of [...this.started.keys()]) await this.stop(key);
  }

  private async stop(key: string): Promise<void> {
    this.started.delete(key);
    const found = listInstances().find((i) => i.record.key === key && i.record.ownerPid === process.pid);
    if (!found) return;
    try {
      for (const f of found.record.pidFiles) await stopByPidFile(f);
      removeInstance(found.record);
      this.log(`  ${key}: stopped`);
    } catch (err) {
      this.log(`  ${key}: could not stop (${(err as Error).message}); see convoy brokers status`);
    }
  }
}
