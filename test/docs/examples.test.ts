/**
 * Every example in README.md and docs/*.md is checked against convoy itself, in this process:
 *
 * - each fenced YAML block: a scenario (or a twin with `extends:`) goes through the scenario
 *   loader, a matrix (`scenario:` and `vary:`) through the matrix planner, every cell; a block
 *   with neither `name:` nor `extends:` is a fragment, loaded under a name of its own. Relative
 *   paths resolve as from workloads/nightly/ (a scenario) or workloads/matrix/ (a matrix);
 * - each `convoy <command> ...` or `./convoy <command> ...`, on a line of a fenced block or in an
 *   inline code span (here and in the broker and workload READMEs): the command (and sub-command) exists in convoy's commander program and so
 *   does every option it uses;
 * - each relative link leads to a file that exists;
 * - lists the docs keep beside the code: every broker's README names each of its settings,
 *   docs/report.md's section table has a row per report section, docs/scenarios.md names every
 *   consumer strategy, concurrency mode and folder of workloads/.
 *
 * Planted stale examples show each check fails. Cost: about 3 s (the commands' modules and the
 * scenario catalogue are imported once; a matrix's cells are loaded, nothing runs).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parse, stringify } from 'yaml';
import type { Command, Option } from 'commander';
import { buildProgram } from '../../harness/cli/main.ts';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';
import { parseScenario } from '../../harness/scenario/load.ts';
import { planFor } from '../../harness/cli/commands/matrix.ts';
import { ENV_PREFIX, resolveExternal, toConnection } from '../../harness/cli/connection.ts';
import { brokerNames, loadBroker } from '../../harness/broker/registry.ts';
import { loadStrategies } from '../../harness/consumer/strategies/registry.ts';
import { reportSections } from '../../harness/report/sections/registry.ts';
import { ROOT } from '../runner/helpers.ts';

interface Block {
  lang: string;
  line: number;
  text: string;
}

/** The fenced code blocks of a Markdown text, with the line of their first content line. */
export function fencedBlocks(text: string): Block[] {
  const out: Block[] = [];
  let open: Block | undefined;
  text.split('\n').forEach((line, i) => {
    if (line.startsWith('```')) {
      if (open) {
        out.push(open);
        open = undefined;
      } else open = { lang: line.slice(3).trim(), line: i + 2, text: '' };
    } else if (open) open.text += `${line}\n`;
  });
  return out;
}

/** The convoy command lines of a Markdown text: lines of fenced blocks and inline code spans. */
export function commandLines(text: string): { line: number; command: string }[] {
  const out: { line: number; command: string }[] = [];
  for (const b of fencedBlocks(text)) {
    if (!['', 'sh', 'bash', 'shell', 'console'].includes(b.lang)) continue;
    b.text.split('\n').forEach((l, i) => {
      const m = /^\s*(?:\$\s*)?(\.\/convoy|convoy)\s+(.*)$/.exec(l);
      if (m) out.push({ line: b.line + i, command: m[2].replace(/\s+#.*$/, '') });
    });
  }
  let fenced = false;
  text.split('\n').forEach((l, i) => {
    if (l.startsWith('```')) fenced = !fenced;
    if (fenced) return;
    for (const m of l.matchAll(/`(?:\.\/)?convoy ([^`]+)`/g)) out.push({ line: i + 1, command: m[1] });
  });
  return out;
}

type Program = Command;
const optionNames = (cmd: Command) => cmd.options.flatMap((o: Option) => [o.long, o.short].filter((x): x is string => Boolean(x)));

/** What is wrong with one command line (its words after `convoy`), for this program; empty when nothing is. */
export function commandProblems(program: Program, words: string): string[] {
  const tokens = words
    .split(/\s+/)
    .map((t) => t.replace(/^[[(]+|[\]),.;:]+$/g, ''))
    .filter(Boolean);
  if (tokens.length === 0) return ['no command'];
  const global = [...optionNames(program), '--help', '-h', '--version', '-V'];
  if (tokens[0].startsWith('-')) return global.includes(tokens[0].split('=')[0]) ? [] : [`unknown option ${tokens[0]}`];
  let cmd = program.commands.find((c) => c.name() === tokens[0] || c.aliases().includes(tokens[0]));
  if (!cmd) return [`no command "${tokens[0]}"`];
  let rest = tokens.slice(1);
  // A sub-command (brokers up, parked list): the next word, when the command has them.
  if (cmd.commands.length > 0 && rest[0] && !rest[0].startsWith('-') && !rest[0].startsWith('<')) {
    const sub = cmd.commands.find((c) => c.name() === rest[0]);
    if (!sub) return [`no command "${tokens[0]} ${rest[0]}"`];
    cmd = sub;
    rest = rest.slice(1);
  }
  const known = [...optionNames(cmd), ...global];
  return rest.filter((t) => /^--?[A-Za-z]/.test(t) && !known.includes(t.split('=')[0])).map((t) => `${cmd!.name()}: unknown option ${t.split('=')[0]}`);
}

const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const read = (f: string) => readFileSync(join(ROOT, f), 'utf8');
const catalogue = await scenarioCatalogue();
const program = await buildProgram([]);

/** A folder that looks like workloads/ (its entries linked), with a `matrix/` of its own for examples. */
function workloadsLookalike(): string {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-doc-examples-'));
  for (const e of readdirSync(join(ROOT, 'workloads'))) if (e !== 'matrix') symlinkSync(join(ROOT, 'workloads', e), join(dir, e));
  mkdirSync(join(dir, 'matrix'));
  return dir;
}
const lookalike = workloadsLookalike();
/** What a fragment is completed with. */
const FRAGMENT_BASE = { name: 'doc-fragment', broker: { kind: 'memory' }, workload: { keys: { count: 1 }, rate: { kind: 'fixed', perSecond: 1 }, durationMs: '1s' } };

/** What is wrong with one YAML example; empty when it loads. */
export async function yamlProblems(text: string, where: string): Promise<string[]> {
  let data: unknown;
  try {
    data = parse(text);
  } catch (e) {
    return [`not YAML: ${(e as Error).message.split('\n')[0]}`];
  }
  if (typeof data !== 'object' || data === null) return ['not a mapping'];
  const doc = data as Record<string, unknown>;
  try {
    // A connection file (`kind:` and settings) or a connections.yaml (names of such), for --connection.
    const isConnection = (v: unknown) => typeof v === 'object' && v !== null && typeof (v as { kind?: unknown }).kind === 'string';
    const scenarioPart = ['name', 'extends', 'seed', 'description', 'broker', 'workload', 'consumers', 'faults', 'expect', 'run', 'scenario', 'vary'].some((k) => k in doc);
    if (!scenarioPart && (isConnection(doc) || Object.values(doc).every(isConnection))) {
      for (const [name, c] of isConnection(doc) ? [[where, doc] as const] : Object.entries(doc)) {
        const connection = toConnection(c, name);
        const settings = (await loadBroker(connection.kind)).externalSettings ?? [];
        // Every ${env:NAME} the example names is set; no CONVOY_EXTERNAL_ variable is.
        const env = new Proxy({}, { get: (_, k) => (typeof k === 'string' && !k.startsWith(ENV_PREFIX) ? 'doc-example-value' : undefined) });
        resolveExternal({ kind: connection.kind, settings, pairs: [], connection, env, warn: () => {} });
      }
      return [];
    }
    if ('vary' in doc && 'scenario' in doc) {
      const file = join(lookalike, 'matrix', `${where.replace(/[^A-Za-z0-9]+/g, '-')}.yaml`);
      writeFileSync(file, text);
      const said: string[] = [];
      await planFor(file, {} as Parameters<typeof planFor>[1], 'local', (l) => said.push(l));
      return [];
    }
    // A fragment (no name, no extends) is one part of a scenario: the rest from the smallest whole one.
    const whole = 'name' in doc || 'extends' in doc ? text : stringify({ ...FRAGMENT_BASE, ...doc });
    await parseScenario(whole, { catalogue, file: join(ROOT, 'workloads/nightly', 'doc-example.yaml') });
    return [];
  } catch (e) {
    const err = e as Error & { detail?: string[] };
    return [[err.message, ...(err.detail ?? [])].join('; ')];
  }
}

test('every YAML example in README.md and docs/*.md loads as convoy loads it', async () => {
  const problems: string[] = [];
  let checked = 0;
  for (const f of DOCS) {
    for (const b of fencedBlocks(read(f)).filter((b) => b.lang === 'yaml' || b.lang === 'yml')) {
      checked++;
      for (const p of await yamlProblems(b.text, `${f}:${b.line}`)) problems.push(`${f}:${b.line}: ${p}`);
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(checked >= 4, `only ${checked} YAML examples found`);
});

/** The other pages a user reads commands from: each broker's README and each workloads folder's. */
const READMES = [
  ...readdirSync(join(ROOT, 'brokers')).map((b) => `brokers/${b}/README.md`),
  ...readdirSync(join(ROOT, 'workloads')).map((d) => `workloads/${d}/README.md`),
].filter((f) => existsSync(join(ROOT, f)));

test('every convoy command in README.md, docs/*.md and the broker and workload READMEs exists with the options it uses', () => {
  const problems: string[] = [];
  let checked = 0;
  for (const f of [...DOCS, ...READMES]) {
    for (const { line, command } of commandLines(read(f))) {
      checked++;
      for (const p of commandProblems(program, command)) problems.push(`${f}:${line}: convoy ${command}: ${p}`);
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(checked >= 40, `only ${checked} command lines found`);
});

test('the checks fail on stale examples: a missing scenario file, a bad value, an unknown command or option', async () => {
  const stale = await yamlProblems('name: m\nscenario: ../nightly/kafka-smoke.yaml\nvary: { broker.client: [kafkajs] }\n', 'planted-matrix');
  assert.equal(stale.length, 1);
  assert.match(stale[0], /kafka-smoke\.yaml/);
  const typo = await yamlProblems('name: x\nbroker: { kind: kafka }\nworkload: { keys: { count: 5, distribution: { kind: zipff } } }\n', 'planted-scenario');
  assert.match(typo.join(), /zipff/);
  assert.deepEqual(await yamlProblems('broker: { kind: kafka, client: confluent }\n', 'a fragment'), []);
  assert.match((await yamlProblems('broker: { kind: kafka, client: librdkafka }\n', 'a bad fragment')).join(), /librdkafka/);
  // Connection files (--connection): a setting the broker kind does not take.
  assert.deepEqual(await yamlProblems('kind: kafka\nbootstrapServers: b:9092\nsasl: { password: "${env:PW}" }\n', 'a connection'), []);
  assert.match((await yamlProblems('staging:\n  kind: kafka\n  url: amqp://h/\n', 'a bad connection')).join(), /kafka takes no external setting "url"/);

  assert.deepEqual(commandProblems(program, 'run workloads/kafka-smoke.yaml --repeat 10'), []);
  assert.deepEqual(commandProblems(program, 'brokers up kafka'), []);
  assert.deepEqual(commandProblems(program, 'frobnicate x'), ['no command "frobnicate"']);
  assert.deepEqual(commandProblems(program, 'run x.yaml --repeats 3'), ['run: unknown option --repeats']);
  assert.deepEqual(commandProblems(program, 'brokers restart'), ['no command "brokers restart"']);
  const lines = commandLines('text `convoy matrix --resume <folder>` and\n```\n./convoy suite workloads/nightly   # a comment\n```\n');
  assert.deepEqual(lines, [{ line: 3, command: 'suite workloads/nightly' }, { line: 1, command: 'matrix --resume <folder>' }]);
});

/** Relative link targets of a Markdown text that do not exist (from the file's folder). */
function brokenLinks(file: string): string[] {
  const text = read(file);
  const out: string[] = [];
  for (const [, target] of text.matchAll(/\]\(((?![a-z]+:)[^)\s#]+)(?:#[^)\s]*)?\)/g)) {
    if (!existsSync(join(ROOT, dirname(file), target))) out.push(`${file}: a link to a missing file: ${target}`);
  }
  return out;
}

test('every relative link in README.md, docs/*.md and the broker READMEs leads to a file', () => {
  const brokers = readdirSync(join(ROOT, 'brokers')).map((b) => `brokers/${b}/README.md`).filter((f) => existsSync(join(ROOT, f)));
  assert.deepEqual([...DOCS, ...brokers].flatMap(brokenLinks), []);
});

/** A settings schema's property paths (`producer.acks`), not descending into free-form maps. */
export function settingPaths(schema: unknown, prefix = ''): string[] {
  const props = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  if (!props) return [];
  return Object.entries(props).flatMap(([k, v]) => {
    const p = prefix ? `${prefix}.${k}` : k;
    return [p, ...settingPaths(v, p)];
  });
}

/** The key paths of the YAML blocks that start with `broker:` (their `broker.` dropped). */
function documentedSettings(readme: string): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown, prefix: string) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return;
    for (const [k, x] of Object.entries(v)) {
      const p = prefix ? `${prefix}.${k}` : k;
      out.add(p);
      walk(x, p);
    }
  };
  for (const b of fencedBlocks(readme).filter((b) => b.lang === 'yaml' && b.text.startsWith('broker:'))) walk((parse(b.text) as { broker?: unknown }).broker, '');
  // Code spans: `producer.acks`, `peerLinks: proxied`, and a table's `deadLetter.enabled` / `.maxReceiveCount`.
  for (const line of readme.split('\n')) {
    let parent = '';
    for (const [, span] of line.matchAll(/`([^`]+)`/g)) {
      const m = /^(?:broker\.)?(\.?[A-Za-z][\w.]*)(?::\s.*)?$/.exec(span);
      if (!m) continue;
      const path = m[1].startsWith('.') ? `${parent}${m[1]}` : m[1];
      parent = path.includes('.') ? path.slice(0, path.lastIndexOf('.')) : path;
      for (let p = path; p; p = p.includes('.') ? p.slice(0, p.lastIndexOf('.')) : '') out.add(p);
    }
  }
  return out;
}

test('each broker README names every setting its settings schema has', async () => {
  const missing: string[] = [];
  for (const b of readdirSync(join(ROOT, 'brokers')).filter((b) => existsSync(join(ROOT, 'brokers', b, 'README.md')))) {
    const broker = await loadBroker(b);
    const documented = documentedSettings(read(`brokers/${b}/README.md`));
    // `kind` is the broker's own name, which every README is about.
    for (const p of settingPaths(broker.settingsSchema)) if (p !== 'kind' && !documented.has(p)) missing.push(`brokers/${b}/README.md: no setting ${p}`);
  }
  assert.deepEqual(missing, []);
  // The check itself: a setting left out of the Kafka README's block is found.
  const kafka = read('brokers/kafka/README.md').replace(/\n {4}api: .*\n/, '\n');
  assert.ok(!documentedSettings(kafka).has('consumer.api'));
});

test("docs/report.md's section table has a row per report section, in the page's order", async () => {
  const rows = read('docs/report.md')
    .split('\n')
    .filter((l) => /^\| [A-Z]/.test(l) && !l.startsWith('| Section'))
    .map((l) => l.split('|')[1].trim());
  const dir = join(ROOT, 'harness/report/sections');
  const titles: string[] = [];
  for (const s of await reportSections()) {
    if (!s.nav) continue;
    const file = readdirSync(dir).find((f) => new RegExp(`nav: \\{ id: '${s.nav!.id}'`).test(readFileSync(join(dir, f), 'utf8')))!;
    const h2 = /<h2>([^<:]+)/.exec(readFileSync(join(dir, file), 'utf8'))![1].trim();
    titles.push(h2);
  }
  const matched = titles.map((t) => rows.findIndex((r) => r.startsWith(t) || r === t));
  const byLabel = (await reportSections()).filter((s) => s.nav).map((s, i) => (matched[i] >= 0 ? matched[i] : rows.indexOf(s.nav!.label)));
  const missing = titles.filter((_, i) => byLabel[i] < 0);
  assert.deepEqual(missing, [], `sections without a row in docs/report.md (rows: ${rows.join(' | ')})`);
  assert.deepEqual([...byLabel].sort((a, b) => a - b), byLabel, 'rows out of the page order');
});

test('docs/scenarios.md names every consumer strategy, concurrency mode and folder of workloads/', async () => {
  const text = read('docs/scenarios.md');
  const strategies = [...(await loadStrategies()).keys()];
  const modes = readdirSync(join(ROOT, 'harness/consumer/concurrency/modes')).map((f) => f.replace(/\.ts$/, ''));
  const folders = readdirSync(join(ROOT, 'workloads')).filter((d) => statSync(join(ROOT, 'workloads', d)).isDirectory());
  assert.ok(strategies.length >= 8 && modes.length >= 5 && folders.length >= 8);
  const missing = [
    ...strategies.filter((s) => !text.includes(`| \`${s}\` |`)).map((s) => `strategy ${s}`),
    ...modes.filter((m) => !text.includes(`\`${m}\``)).map((m) => `mode ${m}`),
    ...folders.filter((d) => !text.includes(`\`workloads/${d}/\``)).map((d) => `folder workloads/${d}/`),
  ];
  assert.deepEqual(missing, []);
  assert.ok(relative(ROOT, lookalike).length > 0);
});

/** A broker's table of variables for a consumer under test, as docs/consumer-under-test.md writes it. */
function serviceTable(title: string, kind: string, variables: Readonly<Record<string, string>>): string {
  return [`**${title}** (\`kind: ${kind}\`):`, '', '| variable | what |', '|---|---|', ...Object.entries(variables).map(([k, v]) => `| \`${k}\` | ${v} |`)].join('\n');
}

test("docs/consumer-under-test.md has each broker's table of service variables, as its link declares them, and no other", async () => {
  const text = read('docs/consumer-under-test.md');
  const linked: string[] = [];
  const problems: string[] = [];
  for (const b of brokerNames()) {
    const broker = await loadBroker(b);
    if (!broker.service) continue;
    linked.push(b);
    const table = serviceTable(broker.title, b, broker.service.variables);
    if (!text.includes(table)) problems.push(`no table, or a stale one, for ${b}; expected:\n${table}`);
  }
  const documented = [...text.matchAll(/^\*\*[^*]+\*\* \(`kind: ([a-z]+)`\):$/gm)].map((m) => m[1]);
  assert.deepEqual(problems, []);
  assert.deepEqual(documented.sort(), linked.sort(), 'a table for each broker with a service link');
  assert.ok(linked.length >= 5 && !linked.includes('memory'));
  // The check itself: a variable left out of a table is found.
  assert.ok(!text.replace(/\n\| `SQS_QUEUE_NAME` \|.*/, '').includes(serviceTable('SQS', 'sqs', (await loadBroker('sqs')).service!.variables)));
});
