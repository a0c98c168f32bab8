/**
 * The layer rule of docs/architecture.md ("Layers"), as a function over a tree: every relative
 * import of a source file must reach its own folder or a folder on a lower floor of the table.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

export interface Floor {
  floor: number;
  /** `harness/runner/`, `brokers/`, or `harness/*.ts` for the files at the top of harness/. */
  folder: string;
}

/** The table's rows, from the document's "Layers" section. */
export function readLayerTable(doc: string): Floor[] {
  const section = doc.slice(doc.indexOf('## Layers'), doc.indexOf('\n## ', doc.indexOf('## Layers') + 1));
  return [...section.matchAll(/^\| (\d+) \| `([^`]+)` \|/gm)].map((m) => ({ floor: Number(m[1]), folder: m[2]! }));
}

/** The table's entry a file belongs to: its folder under harness/ (or harness/*.ts), brokers/, bin/. */
export function unitOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'harness') return parts.length > 2 ? `harness/${parts[1]}/` : 'harness/*.ts';
  return `${parts[0]}/`;
}

function sources(root: string, dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(join(root, dir));
  } catch {
    return [];
  }
  return names.flatMap((n) => {
    const rel = join(dir, n);
    if (n === 'node_modules' || n === 'test') return [];
    if (statSync(join(root, rel)).isDirectory()) return sources(root, rel);
    return /\.(ts|js)$/.test(n) && !n.endsWith('.d.ts') ? [rel] : [];
  });
}

/** Every relative import (static, type-only, re-export, or import() of a literal) with its line. */
export function importsOf(root: string, file: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  readFileSync(join(root, file), 'utf8')
    .split('\n')
    .forEach((text, i) => {
      for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/g)) {
        out.push({ line: i + 1, target: relative(root, normalize(join(root, dirname(file), m[1]!))) });
      }
    });
  return out;
}

/** Each import against the table: `file:line: ...` for every one that breaks it, or for a folder it lacks. */
export function layerViolations(root: string, table: Floor[]): string[] {
  const floorOf = new Map(table.map((r) => [r.folder, r.floor]));
  const problems: string[] = [];
  for (const file of ['harness', 'brokers', 'bin'].flatMap((d) => sources(root, d)).sort()) {
    const from = unitOf(file);
    const own = floorOf.get(from);
    if (own === undefined) {
      problems.push(`${file}: its folder ${from} is not in the layer table`);
      continue;
    }
    for (const { line, target } of importsOf(root, file)) {
      if (target.startsWith('node_modules/')) continue;
      const to = unitOf(target);
      if (to === from) continue;
      const theirs = floorOf.get(to);
      if (theirs === undefined) problems.push(`${file}:${line}: imports ${target}, whose folder ${to} is not in the layer table`);
      else if (theirs >= own) problems.push(`${file}:${line}: ${from} (floor ${own}) imports ${target} (${to}, floor ${theirs})`);
    }
  }
  return problems;
}

/** Import cycles between files (each listed once, as a path). */
export function importCycles(root: string): string[] {
  const files = ['harness', 'brokers', 'bin'].flatMap((d) => sources(root, d)).sort();
  const graph = new Map(files.map((f) => [f, importsOf(root, f).map((i) => i.target)]));
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (f: string, path: string[]) => {
    state.set(f, 'open');
    for (const next of graph.get(f) ?? []) {
      if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next].join(' → '));
      else if (!state.has(next) && graph.has(next)) visit(next, [...path, next]);
    }
    state.set(f, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f, [f]);
  return cycles;
}
