/**
 * `convoy setup`, and the first use of demo, run, suite and test: what the chosen brokers
 * need, installed into the machine (Debian packages, as root) or into the shared cache (broker
 * jars, built binaries). Idempotent and quick when everything is there.
 */
import type { BrokerModule } from '../broker/contract.ts';
import { loadBroker, brokerNames } from '../broker/registry.ts';
import { ensureToxiproxyBinary, TOXIPROXY } from '../net/toxiproxy.ts';
import { ensureRequirements, type Apt } from './install.ts';
import { TEST_NEEDS, type NeedBy } from './needs.ts';

export interface SetupOptions {
  /** Only these brokers (default: every broker under brokers/). */
  brokers?: string[];
  /** Also what `convoy test` needs beyond the brokers (Chromium for the report tests). */
  forTests?: boolean;
  log: (line: string) => void;
  /** For tests of the install path: another apt-get and another idea of root. */
  apt?: Apt;
}

/** Every need of these modules and of the harness, each with who has it. */
export function needsOf(modules: BrokerModule[], forTests: boolean): NeedBy[] {
  return [
    ...(forTests ? TEST_NEEDS : []),
    ...modules.flatMap((m) => (m.requirements ?? []).map((n) => ({ ...n, by: `broker ${m.name}` }))),
  ];
}

export async function setup(opts: SetupOptions): Promise<void> {
  const started = Date.now();
  const names = opts.brokers ?? brokerNames();
  const modules = await Promise.all([...new Set(names)].map((n) => loadBroker(n)));
  ensureRequirements(needsOf(modules, Boolean(opts.forTests)), opts.log, opts.apt);
  if (modules.some((m) => m.requirements?.includes(TOXIPROXY))) ensureToxiproxyBinary(opts.log);
  for (const m of modules) {
    if (!m.provision) continue;
    const t = Date.now();
    await m.provision(opts.log);
    opts.log(`${m.name}: ready (${((Date.now() - t) / 1000).toFixed(1)} s)`);
  }
  opts.log(`everything in place (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
