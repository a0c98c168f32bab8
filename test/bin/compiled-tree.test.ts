/**
 * The compiled tree (bin/compiled-tree.js): harness/ and brokers/ as JavaScript in the cache, so
 * convoy's processes start without tsx. It must find what the sources find (every plugin
 * folder lists the same plugins), be rebuilt when a source changes and only then, and step
 * aside when turned off.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, lstatSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { CONVOY, ROOT } from '../runner/helpers.ts';

/** Runs bin/compiled-tree.js of `root` with its own cache; the tree's folder, or '' when none. */
function build(root: string, cache: string, env: Record<string, string> = {}): string {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', `const { compiledTree } = await import(${JSON.stringify(join(root, 'bin', 'compiled-tree.js'))}); console.log((await compiledTree()) ?? '')`], {
    encoding: 'utf8',
    env: { ...process.env, CONVOY_CACHE: cache, CONVOY_COMPILED: '', ...env },
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

function files(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) files(p, out);
    else out.push(p);
  }
  return out;
}

/** Lists every plugin folder's plugins, run from a root: the checkout (through tsx) or a tree. */
const LIST = `
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
const [root, ext] = process.argv.slice(1);
const imp = (p) => import(pathToFileURL(join(root, p + ext)).href);
const { MODULE_EXT } = await imp('harness/module-ext');
const { brokerNames } = await imp('harness/broker/registry');
const { faultKinds } = await imp('harness/faults/registry');
const { CONCURRENCY_MODES } = await imp('harness/consumer/concurrency/registry');
const { GATEWAY_MODES } = await imp('harness/gateway/registry');
const { loadStrategies } = await imp('harness/consumer/strategies/registry');
const { buildProgram } = await imp('harness/cli/main');
console.log(JSON.stringify({
  ext: MODULE_EXT,
  brokers: brokerNames(),
  faults: [...(await faultKinds()).keys()],
  concurrency: CONCURRENCY_MODES.map((m) => m.name),
  gateway: GATEWAY_MODES.map((m) => m.name),
  strategies: [...(await loadStrategies()).keys()],
  commands: (await buildProgram()).commands.map((c) => c.name()),
}));
`;

function plugins(root: string, ext: '.ts' | '.js'): Record<string, unknown> {
  const loader = ext === '.ts' ? ['--import', 'tsx/esm'] : [];
  const r = spawnSync(process.execPath, [...loader, '--input-type=module', '-e', LIST, root, ext], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CONVOY_STRATEGY_DIRS: '' } });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

test('the compiled tree finds every plugin the sources find, and its modules import nothing from the sources', () => {
  const tree = build(ROOT, mkdtempSync(join(tmpdir(), 'convoy-tree-cache-')));
  assert.ok(tree, 'a tree was built');
  const { ext: compiledExt, ...compiled } = plugins(tree, '.js');
  const { ext: sourceExt, ...sources } = plugins(ROOT, '.ts');
  assert.deepEqual([compiledExt, sourceExt], ['.js', '.ts']);
  assert.deepEqual(compiled, sources);
  const names = sources as Record<string, string[]>;
  assert.ok(names.brokers!.includes('memory') && names.faults!.length > 5 && names.strategies!.length > 5 && names.commands!.includes('run'), JSON.stringify(names));

  const all = files(join(tree, 'harness')).concat(files(join(tree, 'brokers')));
  const js = all.filter((f) => f.endsWith('.js') && !lstatSync(f).isSymbolicLink());
  assert.ok(js.length > 200, `${js.length} compiled modules`);
  for (const f of js) assert.doesNotMatch(readFileSync(f, 'utf8'), /(from|import)\s*\(?\s*["']\.{1,2}\/[^"']*\.ts["']/, relative(tree, f));
  // Files that are not modules are the checkout's own (linked), as is everything at the top.
  const schema = join(tree, 'harness', 'scenario', 'scenario.schema.json');
  assert.ok(lstatSync(schema).isSymbolicLink());
  assert.equal(readFileSync(schema, 'utf8'), readFileSync(join(ROOT, 'harness', 'scenario', 'scenario.schema.json'), 'utf8'));
  for (const top of ['package.json', 'node_modules', 'workloads']) assert.ok(lstatSync(join(tree, top)).isSymbolicLink(), top);
});

test('the tree is rebuilt when a source changes and only then; CONVOY_COMPILED=0 turns it off', () => {
  // A copy of the checkout's code (its packages linked), so a source can change.
  const root = mkdtempSync(join(tmpdir(), 'convoy-tree-root-'));
  for (const d of ['harness', 'brokers', 'bin']) cpSync(join(ROOT, d), join(root, d), { recursive: true, filter: (s) => !s.includes('/test/') && !s.endsWith('/test') });
  for (const f of ['package.json', 'node_modules']) symlinkSync(join(ROOT, f), join(root, f));
  const cache = mkdtempSync(join(tmpdir(), 'convoy-tree-cache-'));

  const first = build(root, cache);
  assert.ok(first.startsWith(join(cache, 'compiled')), first);
  assert.equal(build(root, cache), first, 'unchanged sources: the same tree, not rebuilt');
  const clock = join(root, 'harness', 'clock.ts');
  writeFileSync(clock, `${readFileSync(clock, 'utf8')}\nexport const CHANGED = 1;\n`);
  const second = build(root, cache);
  assert.notEqual(second, first, 'a changed source: a new tree');
  assert.match(readFileSync(join(second, 'harness', 'clock.js'), 'utf8'), /CHANGED = 1/);
  assert.equal(build(root, cache, { CONVOY_COMPILED: '0' }), '');
});

test('the CLI says the same from the compiled tree as from the sources', () => {
  const scenario = join(ROOT, 'brokers', 'memory', 'test', 'scenarios', 'add-partitions.yaml');
  const run = (env: Record<string, string>) => spawnSync(process.execPath, [CONVOY, 'validate', scenario], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env } });
  const compiled = run({});
  const sources = run({ CONVOY_COMPILED: '0' });
  assert.equal(compiled.status, 0, compiled.stderr);
  assert.equal(compiled.stdout, sources.stdout);
  assert.equal(compiled.stderr, sources.stderr);
  assert.match(compiled.stdout, /^ok .*add-partitions/);
});
