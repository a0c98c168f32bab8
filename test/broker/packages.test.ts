/**
 * A broker's npm packages belong to its folder: each broker folder is an npm workspace whose
 * package.json lists its client packages, the registry reads `clients` from there, and the root
 * package.json names none of them. Every package a broker's code imports is declared either by
 * the broker itself or by the root (harness-wide packages such as toxiproxy-node-client).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { BROKERS_DIR, brokerNames, brokerPackages, loadBroker } from '../../harness/broker/registry.ts';

const root = JSON.parse(readFileSync(join(BROKERS_DIR, '..', 'package.json'), 'utf8')) as Record<string, Record<string, string> | string[] | undefined>;
const rootDeps = new Set(['dependencies', 'optionalDependencies', 'devDependencies'].flatMap((k) => Object.keys((root[k] as Record<string, string> | undefined) ?? {})));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'test') return [];
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The npm package a bare import specifier names (`@scope/name/sub` -> `@scope/name`). */
function packageOf(spec: string): string | null {
  if (spec.startsWith('.') || spec.startsWith('node:') || spec.startsWith('/')) return null;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

test('the root package.json is the workspace root and names no broker package', () => {
  assert.deepEqual(root.workspaces, ['brokers/*']);
  for (const b of brokerNames()) {
    for (const p of brokerPackages(b)) assert.ok(!rootDeps.has(p), `${p} (broker ${b}) is also a root dependency`);
  }
});

test('every package a broker imports is its own or the harness\'s', () => {
  for (const b of brokerNames()) {
    const own = new Set(brokerPackages(b));
    for (const file of sources(join(BROKERS_DIR, b))) {
      // TypeScript's own scan of import, export and import() specifiers (comments and strings excluded).
      for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
        const pkg = packageOf(fileName);
        if (pkg) assert.ok(own.has(pkg) || rootDeps.has(pkg), `${file.slice(BROKERS_DIR.length)} imports ${pkg}, which neither brokers/${b}/package.json nor the root declares`);
      }
    }
  }
});

test('a loaded module\'s clients come from its package.json; a broker without one has none', async () => {
  assert.deepEqual((await loadBroker('kafka')).clients, ['@confluentinc/kafka-javascript', '@platformatic/kafka', 'kafkajs']);
  assert.deepEqual((await loadBroker('rabbitmq')).clients, ['amqplib']);
  assert.deepEqual((await loadBroker('memory')).clients, []);
  for (const b of brokerNames()) assert.deepEqual((await loadBroker(b)).clients, brokerPackages(b));
});
