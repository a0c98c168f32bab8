/**
 * The layers of docs/architecture.md hold: every import in harness/, brokers/ and bin/ reaches
 * its own folder or a lower floor of the table, with no exception, and no two files import each
 * other round a circle. A tree that breaks the rule is caught, file and line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importCycles, layerViolations, readLayerTable } from './helpers/layers.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const table = readLayerTable(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'));

test('the layer table names each folder once, lowest floor first', () => {
  assert.ok(table.length >= 20, `only ${table.length} rows read`);
  assert.equal(new Set(table.map((r) => r.folder)).size, table.length);
  assert.deepEqual(table.map((r) => r.floor), [...table.map((r) => r.floor)].sort((a, b) => a - b));
});

test('every import goes down the layers, with no exception', () => {
  assert.deepEqual(layerViolations(ROOT, table), []);
});

test('no import circle between files', () => {
  assert.deepEqual(importCycles(ROOT), []);
});

test('an upward import, a sideways one and a folder the table lacks are each caught with file and line', () => {
  const root = mkdtempSync(join(tmpdir(), 'convoy-layers-'));
  const write = (file: string, text: string) => {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), text);
  };
  write('harness/runner/run.ts', 'export const run = 1;\n');
  write('harness/checker/x.ts', "import { run } from '../runner/run.ts';\nexport const x = run;\n");
  write('harness/suite/y.ts', "// a suite reads a matrix\nimport type { M } from '../matrix/m.ts';\n");
  write('harness/matrix/m.ts', 'export type M = 1;\n');
  write('harness/newfolder/z.ts', 'export const z = 1;\n');
  write('harness/cli/ok.ts', "import { run } from '../runner/run.ts';\nimport { x } from '../checker/x.ts';\n");
  const problems = layerViolations(root, table);
  assert.deepEqual(problems, [
    'harness/checker/x.ts:1: harness/checker/ (floor 2) imports harness/runner/run.ts (harness/runner/, floor 9)',
    'harness/newfolder/z.ts: its folder harness/newfolder/ is not in the layer table',
    'harness/suite/y.ts:2: harness/suite/ (floor 10) imports harness/matrix/m.ts (harness/matrix/, floor 10)',
  ]);
  // And a circle between two files of one folder.
  write('harness/runner/a.ts', "import './b.ts';\n");
  write('harness/runner/b.ts', "export * from './a.ts';\n");
  assert.deepEqual(importCycles(root), ['harness/runner/a.ts → harness/runner/b.ts → harness/runner/a.ts']);
});
