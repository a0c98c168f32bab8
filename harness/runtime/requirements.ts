/**
 * What the local runtime needs from the machine: every external program convoy runs is a
 * declared Requirement. Code asks for a Requirement object (`requireTool(JAVA, ...)`), never
 * for a program name in a string, so a program nobody declared fails type checking instead of
 * failing on a user's machine. The requirements shared by several modules are declared here;
 * a broker declares its own in its folder (brokers/rabbitmq/requirements.ts) and lists all it
 * needs in its module, so `convoy setup` and `convoy doctor` learn them from the modules.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { InfraError } from '../errors.ts';

/** Where a requirement comes from when it is missing. */
export type Source =
  /** Debian packages: `convoy setup` installs them as root, or prints the one apt command. */
  | { kind: 'debian'; packages: string[] }
  /**
   * A toolchain the user installs (Debian's cannot do: its Go is too old). convoy cannot
   * install it; `how` says where to get it.
   */
  | { kind: 'toolchain'; name: string; how: string };

export interface Requirement {
  /** Short stable name, shown by doctor and in errors. */
  name: string;
  /** What it is, for people: "a Java runtime". */
  what: string;
  source: Source;
  /** Oldest version that works (dotted numbers), if any. */
  minVersion?: string;
  /** Where the program is: a path, or undefined when missing. Absent for package-only requirements. */
  locate?(): string | undefined;
  /** The version found (dotted numbers), or undefined when it cannot be told. */
  version(path: string | undefined): string | undefined;
}

/** A module's or command's use of a requirement: who needs it and for what. */
export interface Need {
  requirement: Requirement;
  /** "to run Apache Kafka" */
  purpose: string;
}

export interface Probe {
  requirement: Requirement;
  path?: string;
  version?: string;
  /** True when present and new enough. */
  ok: boolean;
  /** Why it is not ok, in a few words: "missing", "17.0.2 is older than 21". */
  problem?: string;
}

/** A program on PATH. */
export function onPath(cmd: string): () => string | undefined {
  return () => {
    const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
    const out = r.stdout?.trim();
    return r.status === 0 && out ? out : undefined;
  };
}

/** A program at a fixed path (a Debian package's private bin dir). */
export function atPath(path: () => string): () => string | undefined {
  return () => (existsSync(path()) ? path() : undefined);
}

/** The first dotted version a command prints (stdout and stderr), matched by `pattern`'s group 1. */
export function printedVersion(args: string[], pattern: RegExp): (path: string | undefined) => string | undefined {
  return (path) => {
    if (!path) return undefined;
    const r = spawnSync(path, args, { encoding: 'utf8', timeout: 20_000 });
    return pattern.exec(`${r.stdout ?? ''}\n${r.stderr ?? ''}`)?.[1];
  };
}

/** The installed version of a Debian package (epoch and revision dropped). */
export function debianVersion(pkg: string): string | undefined {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}\t${Version}', pkg], { encoding: 'utf8' });
  if (r.status !== 0) return undefined;
  const [status, version] = r.stdout.split('\t');
  if (!status?.endsWith(' installed')) return undefined;
  return version?.replace(/^\d+:/, '').replace(/-[^-]*$/, '');
}

export function defineRequirement(r: Requirement): Requirement {
  return r;
}

/** Requirements that are a set of Debian packages and no program of their own. */
export function debianPackages(name: string, what: string, packages: string[]): Requirement {
  return defineRequirement({
    name,
    what,
    source: { kind: 'debian', packages },
    version: () => {
      const missing = packages.filter((p) => !debianVersion(p));
      return missing.length === 0 ? 'installed' : undefined;
    },
  });
}

/** -1, 0, 1 for dotted numeric versions ("17.0.15" vs "17"). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.\-+_]/).map((x) => parseInt(x, 10));
  const pb = b.split(/[.\-+_]/).map((x) => parseInt(x, 10));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = Number.isFinite(pa[i]) ? pa[i]! : 0;
    const y = Number.isFinite(pb[i]) ? pb[i]! : 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

export function probe(req: Requirement): Probe {
  const path = req.locate?.();
  if (req.locate && !path) return { requirement: req, ok: false, problem: 'missing' };
  const version = req.version(path);
  if (!version) return { requirement: req, path, ok: false, problem: req.locate ? 'its version could not be read' : 'missing' };
  if (req.minVersion && /^\d/.test(version) && compareVersions(version, req.minVersion) < 0) {
    return { requirement: req, path, version, ok: false, problem: `${version} is older than ${req.minVersion}` };
  }
  return { requirement: req, path, version, ok: true };
}

/** The one line that tells how to get a requirement. */
export function howToGet(req: Requirement): string {
  return req.source.kind === 'debian'
    ? `apt-get install -y ${req.source.packages.join(' ')}`
    : `${req.source.name}: ${req.source.how}`;
}

const found = new Map<Requirement, string>();

/**
 * The requirement's path, or an InfraError with one clear line when it is missing or too old.
 * A requirement found once is not probed again in this process.
 */
export function requireTool(req: Requirement, purpose: string): string {
  const known = found.get(req);
  if (known) return known;
  const p = probe(req);
  if (!p.ok) {
    const fix = req.source.kind === 'debian' ? `run ./convoy setup (as root), or ${howToGet(req)}` : howToGet(req);
    throw new InfraError(`${req.name}: ${p.problem} (needed ${purpose}); fix: ${fix}`);
  }
  found.set(req, p.path ?? req.name);
  return p.path ?? req.name;
}

// The requirements several modules share.

export const JAVA = defineRequirement({
  name: 'java',
  what: 'a Java runtime (Kafka brokers and tools, ElasticMQ)',
  minVersion: '17',
  source: { kind: 'debian', packages: ['openjdk-17-jre-headless'] },
  locate: onPath('java'),
  version: printedVersion(['-version'], /version "(\d+(?:\.\d+)*)/),
});

export const MAVEN = defineRequirement({
  name: 'mvn',
  what: 'Maven (collects broker jars from Maven Central)',
  minVersion: '3.6',
  source: { kind: 'debian', packages: ['maven'] },
  locate: onPath('mvn'),
  version: printedVersion(['-v'], /Apache Maven (\d+(?:\.\d+)*)/),
});

/** Debian's golang is 1.19: too old for the pstest server's go.mod, so Go is a toolchain. */
export const GO = defineRequirement({
  name: 'go',
  what: 'the Go toolchain (builds Toxiproxy and the Pub/Sub emulator)',
  minVersion: '1.26',
  source: { kind: 'toolchain', name: 'Go 1.26+', how: 'install Go 1.26 or later from https://go.dev/dl (convoy looks in PATH and /usr/local/go/bin; Debian\'s golang package is too old)' },
  locate: () => onPath('go')() ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined),
  version: printedVersion(['version'], /go(\d+(?:\.\d+)*)/),
});

export const CHROMIUM = defineRequirement({
  name: 'chromium',
  what: 'Chromium (the report tests render pages in it)',
  source: { kind: 'debian', packages: ['chromium'] },
  locate: atPath(() => '/usr/bin/chromium'),
  version: printedVersion(['--version'], /Chromium (\d+(?:\.\d+)*)/),
});

/** Debian's PostgreSQL server (the consumers' entity store with `consumers.store: postgres`); its programs live in a versioned folder off PATH. */
export const POSTGRESQL = defineRequirement({
  name: 'postgresql',
  what: "a PostgreSQL server (the consumers' entity store, consumers.store: postgres)",
  source: { kind: 'debian', packages: ['postgresql'] },
  locate: () => postgresBin('postgres'),
  version: printedVersion(['--version'], /\(PostgreSQL\) (\d+(?:\.\d+)*)/),
});

/** A program of the newest PostgreSQL Debian installed (/usr/lib/postgresql/<major>/bin/). */
export function postgresBin(program: string): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root).filter((d) => /^\d+$/.test(d)).sort((a, b) => Number(b) - Number(a));
  return majors.map((m) => `${root}/${m}/bin/${program}`).find((p) => existsSync(p));
}
