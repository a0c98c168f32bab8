import { spawnSync } from 'node:child_process';
import { loadBroker, brokerNames } from '../broker/registry.ts';
import { InfraError } from '../errors.ts';
import { ensureToxiproxyBinary } from '../net/toxiproxy.ts';
import { requireCommand } from '../runtime/tools.ts';

/** Debian packages beyond the brokers' own: the report tests render pages in Chromium. */
const HARNESS_DEBIAN_PACKAGES = ['chromium'];

function dpkgInstalled(pkg: string): boolean {
  return spawnSync('dpkg', ['-s', pkg], { stdio: 'ignore' }).status === 0;
}

/** Installs Debian packages when root; otherwise says which command to run. */
export function ensureDebianPackages(pkgs: string[], log: (l: string) => void): void {
  const missing = pkgs.filter((p) => !dpkgInstalled(p));
  if (missing.length === 0) return;
  const cmd = `apt-get update && apt-get install -y ${missing.join(' ')}`;
  if (process.getuid?.() !== 0) throw new InfraError(`missing Debian packages: ${missing.join(', ')}; run as root: ${cmd}`);
  log(`installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', ...missing]]) {
    const r = spawnSync('apt-get', args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (r.status !== 0) {
      throw new InfraError(`apt-get ${args[0]} failed (apt access needed: ${cmd})`, (r.stderr || r.stdout).trim().split('\n').slice(-10));
    }
  }
}

/**
 * `convoy setup`: everything the local runtime needs, installed into the machine (Debian
 * packages) or the shared cache (broker jars, built binaries). Idempotent and quick when done.
 */
export async function setup(opts: { brokers?: string[]; withBrowser?: boolean; log: (l: string) => void }): Promise<void> {
  const started = Date.now();
  const names = opts.brokers ?? brokerNames();
  const modules = await Promise.all(names.map((n) => loadBroker(n)));
  const debs = new Set<string>(opts.withBrowser ? HARNESS_DEBIAN_PACKAGES : []);
  for (const m of modules) for (const p of m.debianPackages ?? []) debs.add(p);
  ensureDebianPackages([...debs], opts.log);
  requireCommand('go', 'to build Toxiproxy');
  ensureToxiproxyBinary(opts.log);
  for (const m of modules) {
    if (!m.provision) continue;
    const t = Date.now();
    await m.provision(opts.log);
    opts.log(`${m.name}: ready (${((Date.now() - t) / 1000).toFixed(1)} s)`);
  }
  opts.log(`everything in place (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
