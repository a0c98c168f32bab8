/**
 * Makes the declared requirements true: Debian packages are installed when convoy runs as
 * root; otherwise, and for toolchains convoy cannot install, one InfraError says what is
 * missing and the one command that fixes it.
 */
import { spawnSync } from 'node:child_process';
import { InfraError } from '../errors.ts';
import { howToGet, probe, type Probe, type Requirement } from '../runtime/requirements.ts';
import type { NeedBy } from './needs.ts';

/** How packages get installed: the program to call and its first arguments, and whether convoy may. */
export interface Apt {
  command: string;
  /** Arguments before apt-get's own (sudo's: `-n env DEBIAN_FRONTEND=… apt-get`). */
  prefix?: string[];
  mayInstall: boolean;
}

/**
 * Root installs with apt-get; another user installs through sudo when sudo needs no password
 * (a hosted CI runner), never by asking for one. CONVOY_NO_INSTALL=1 asks for the command to
 * be printed instead.
 */
export function defaultApt(): Apt {
  if (process.env.CONVOY_NO_INSTALL === '1') return { command: 'apt-get', mayInstall: false };
  if (process.getuid?.() === 0) return { command: 'apt-get', mayInstall: true };
  const sudo = spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore', timeout: 10_000 });
  if (sudo.status === 0) return { command: 'sudo', prefix: ['-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'], mayInstall: true };
  return { command: 'apt-get', mayInstall: false };
}

function who(needs: NeedBy[], req: Requirement): string {
  return needs.filter((n) => n.requirement === req).map((n) => `${n.by}: ${n.purpose}`).join('; ');
}

function aptCommand(pkgs: string[]): string {
  return `apt-get update && apt-get install -y ${pkgs.join(' ')}`;
}

function aptGet(apt: Apt, args: string[], pkgs: string[]): void {
  const r = spawnSync(apt.command, [...(apt.prefix ?? []), ...args], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 900_000,
  });
  if (r.error || r.status !== 0) {
    const out = `${r.stdout ?? ''}\n${r.stderr ?? ''}\n${r.error?.message ?? ''}`.trim().split('\n').filter(Boolean).slice(-8);
    const hint = args[0] === 'update' ? 'is the Debian mirror reachable?' : 'see the lines below';
    throw new InfraError(`apt-get ${args[0]} failed (${hint}); fix it, then run as root: ${aptCommand(pkgs)}`, out);
  }
}

function debianPackagesOf(probes: Probe[]): string[] {
  return [...new Set(probes.flatMap((p) => (p.requirement.source.kind === 'debian' ? p.requirement.source.packages : [])))];
}

function missingLine(needs: NeedBy[], p: Probe): string {
  return `${p.requirement.name}: ${p.problem} (needed by ${who(needs, p.requirement)})`;
}

/** Probes every requirement the needs name; installs or explains what is missing. */
export function ensureRequirements(needs: NeedBy[], log: (line: string) => void, apt: Apt = defaultApt()): void {
  const reqs = [...new Set(needs.map((n) => n.requirement))];
  let missing = reqs.map(probe).filter((p) => !p.ok);
  if (missing.length === 0) return;

  const debs = debianPackagesOf(missing);
  let installed: string[] = [];
  if (debs.length > 0 && apt.mayInstall) {
    log(`installing Debian packages for ${missing.filter((p) => p.requirement.source.kind === 'debian').map((p) => p.requirement.name).join(', ')}: ${debs.join(' ')}`);
    const t = Date.now();
    aptGet(apt, ['update', '-qq'], debs);
    aptGet(apt, ['install', '-y', '-qq', ...debs], debs);
    log(`installed ${debs.join(' ')} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
    installed = debs;
    missing = missing.map((p) => probe(p.requirement)).filter((p) => !p.ok);
    if (missing.length === 0) return;
  }
  const stillDebs = debianPackagesOf(missing).filter((d) => !installed.includes(d));
  const fixes = [
    ...missing.filter((p) => p.requirement.source.kind === 'toolchain').map((p) => howToGet(p.requirement)),
    ...(stillDebs.length > 0 ? [`as root: ${aptCommand(stillDebs)}   (or run ./convoy setup as root, or as a user with sudo that needs no password)`] : []),
    ...(missing.some((p) => p.requirement.source.kind === 'debian' && installed.length > 0)
      ? [`${installed.join(' ')} installed but not enough: put a new enough one first on PATH`]
      : []),
  ];
  throw new InfraError(
    `convoy needs: ${missing.map((p) => `${p.requirement.name} (${p.problem})`).join(', ')}; fix: ${fixes.join('; and ')}`,
    missing.map((p) => missingLine(needs, p)),
  );
}
