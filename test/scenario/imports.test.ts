/**
 * The scenario loader's layering: no import cycle through harness/scenario/, and nothing in it
 * imports the runner's or the CLI's modules that sit above it (its plug-ins come in a catalogue).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** file (relative to the root) → the relative modules it imports, type imports and import() included. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const abs of sources(join(ROOT, 'harness'))) {
    const text = readFileSync(abs, 'utf8');
    const deps = [...text.matchAll(/(?:from\s+|import\()'(\.{1,2}\/[^']+)'/g)].map((m) => relative(ROOT, normalize(join(dirname(abs), m[1]))));
    graph.set(relative(ROOT, abs), deps);
  }
  return graph;
}

test('no import cycle passes through harness/scenario/', () => {
  const graph = importGraph();
  const cycles: string[] = [];
  const visit = (node: string, path: string[]) => {
    for (const next of graph.get(node) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) cycles.push([...path.slice(at), next].join(' → '));
      else if (path.length < 30) visit(next, [...path, next]);
    }
  };
  for (const file of graph.keys()) if (file.startsWith('harness/scenario/')) visit(file, [file]);
  assert.deepEqual(cycles.filter((c) => c.includes('harness/scenario/')), []);
});

test('the scenario modules import nothing of the CLI, the runner\'s merge or the registries', () => {
  const graph = importGraph();
  for (const [file, deps] of graph) {
    if (!file.startsWith('harness/scenario/')) continue;
    for (const d of deps) {
      assert.ok(!/^harness\/(cli\/|runner\/merge|faults\/registry|broker\/registry)/.test(d), `${file} imports ${d}`);
    }
  }
});
