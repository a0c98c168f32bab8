/**
 * `convoy doctor`: what the local runtime needs and what this machine has. Requirements with
 * their versions and who needs them, whether the optional librdkafka binding loads, what the
 * shared cache holds, and how big it is. Nothing is installed or changed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrokerModule, CachedItem } from '../broker/contract.ts';
import { toxiproxyBinaryPath, TOXIPROXY_VERSION } from '../net/toxiproxy.ts';
import { cacheDir } from '../runtime/cache.ts';
import { howToGet, probe, type Probe } from '../runtime/requirements.ts';
import type { NeedBy } from './needs.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface RequirementRow extends Probe {
  neededBy: string[];
  /** Needed by the default scenarios (every broker's local runtime), not only by `convoy test`. */
  essential: boolean;
  fix: string;
}

export interface DoctorReport {
  /** The Node this runs on, and why it is that one (bin/node-select.sh's rule). */
  node: { version: string; abi: string; path: string; chosen: string };
  requirements: RequirementRow[];
  binding: { name: string; loads: boolean; detail: string };
  cache: { dir: string; bytes: number | null; items: (CachedItem & { essential: boolean })[] };
  /** True when everything the default scenarios need is in place. */
  ready: boolean;
}

/** The Node in use, and which step of bin/node-select.sh's rule chose it. */
export function nodeInUse(env: NodeJS.ProcessEnv = process.env, execPath = process.execPath): DoctorReport['node'] {
  const chosen = env.CONVOY_NODE && env.CONVOY_NODE === execPath
    ? 'CONVOY_NODE'
    : execPath.startsWith(join(cacheDir(), 'node') + sep)
      ? "fetched from the npm registry (.node-version), as the machine's node is not a supported line"
      : "the machine's node";
  return { version: process.version, abi: process.versions.modules, path: execPath, chosen };
}

/** Loads the native client in a child: a broken build must not take doctor down with it. */
function librdkafkaBinding(): DoctorReport['binding'] {
  const name = '@confluentinc/kafka-javascript';
  const r = spawnSync(process.execPath, ['-e', `process.stdout.write(require('${name}').librdkafkaVersion)`], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (r.status === 0) return { name, loads: true, detail: `librdkafka ${r.stdout.trim()}` };
  const why = (r.stderr || r.error?.message || 'no output').split('\n').find((l) => /Error|Cannot/.test(l)) ?? 'it did not load';
  return { name, loads: false, detail: `${why.trim()} (client: confluent is unavailable; re-run npm ci with the librdkafka-build packages installed)` };
}

/** "broker kafka, broker sqs: to run ..." : one entry per purpose, with everyone who has it. */
function byPurpose(needs: NeedBy[]): string[] {
  const groups = new Map<string, string[]>();
  for (const n of needs) groups.set(n.purpose, [...(groups.get(n.purpose) ?? []), n.by]);
  return [...groups].map(([purpose, by]) => `${by.join(', ')}: ${purpose}`);
}

function sizeOf(dir: string): number | null {
  const r = spawnSync('du', ['-sb', dir], { encoding: 'utf8' });
  const n = Number(r.stdout?.split('\t')[0]);
  return r.status === 0 && Number.isFinite(n) ? n : null;
}

export function examine(modules: BrokerModule[], essentialNeeds: NeedBy[], otherNeeds: NeedBy[]): DoctorReport {
  const all = [...essentialNeeds, ...otherNeeds];
  const reqs = [...new Set(all.map((n) => n.requirement))];
  const requirements = reqs.map((req): RequirementRow => {
    const users = all.filter((n) => n.requirement === req);
    return {
      ...probe(req),
      neededBy: byPurpose(users),
      essential: essentialNeeds.some((n) => n.requirement === req),
      fix: howToGet(req),
    };
  });
  const dir = cacheDir();
  const toxiproxy = toxiproxyBinaryPath();
  const items = [
    { what: `Toxiproxy ${TOXIPROXY_VERSION} server`, path: toxiproxy, present: existsSync(toxiproxy), essential: true },
    ...modules.flatMap((m) => (m.cached?.() ?? []).map((c) => ({ ...c, what: `${m.name}: ${c.what}`, essential: true }))),
  ];
  const ready = requirements.every((r) => r.ok || !r.essential) && items.every((i) => i.present || !i.essential);
  return { node: nodeInUse(), requirements, binding: librdkafkaBinding(), cache: { dir, bytes: sizeOf(dir), items }, ready };
}

function mib(bytes: number | null): string {
  return bytes === null ? 'size unknown' : bytes >= 1 << 30 ? `${(bytes / (1 << 30)).toFixed(1)} GiB` : `${(bytes / (1 << 20)).toFixed(0)} MiB`;
}

/** The report as a person reads it. */
export function formatReport(r: DoctorReport): string[] {
  const out: string[] = [`node ${r.node.version} (ABI ${r.node.abi})  ${r.node.path}`, `  chosen: ${r.node.chosen}${r.node.chosen === 'CONVOY_NODE' ? '' : ' (set CONVOY_NODE to use another)'}`, '', 'requirements (local runtime)'];
  for (const q of r.requirements) {
    const mark = q.ok ? 'ok     ' : q.essential ? 'MISSING' : 'missing';
    const min = q.requirement.minVersion ? ` (needs ${q.requirement.minVersion}+)` : '';
    const found = q.ok ? `${q.version === 'installed' ? 'installed' : q.version}${min}${q.path ? `  ${q.path}` : ''}` : `${q.problem}${min}`;
    out.push(`  ${mark} ${q.requirement.name.padEnd(17)} ${found}`);
    out.push(`          needed by ${q.neededBy.join('; ')}`);
    if (!q.ok) out.push(`          get it: ${q.fix}`);
  }
  out.push('', 'librdkafka client (optional)');
  out.push(`  ${r.binding.loads ? 'ok     ' : 'missing'} ${r.binding.name}: ${r.binding.detail}`);
  out.push('', `cache: ${r.cache.dir} (${mib(r.cache.bytes)}; move it with CONVOY_CACHE)`);
  for (const i of r.cache.items) out.push(`  ${i.present ? 'ok     ' : 'not yet'} ${i.what}${i.present ? '' : '  (./convoy setup, or first use)'}`);
  out.push('', r.ready ? 'everything the default scenarios need is in place' : 'not ready: run ./convoy setup (as root) to install what is missing');
  return out;
}
