/**
 * workloads/known-bugs/: every scenario loads, names the public thread it reproduces and the
 * versions it targets in its header, and every scenario that expects an anomaly has a control
 * twin (a scenario that extends it) in the folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadScenarioFile } from '../../harness/scenario/load.ts';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';
import { ROOT } from '../runner/helpers.ts';

const DIR = join(ROOT, 'workloads/known-bugs');
const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml')).sort();

/** The leading comment lines of a file. */
function header(text: string): string {
  return text.split('\n').filter((l, i, all) => all.slice(0, i + 1).every((x) => x.startsWith('#'))).join('\n');
}

test('every known-bug scenario loads and its header links a public thread and names versions', async () => {
  assert.ok(files.length >= 6, `only ${files.length} scenarios`);
  const catalogue = await scenarioCatalogue();
  for (const f of files) {
    const text = readFileSync(join(DIR, f), 'utf8');
    await loadScenarioFile(join(DIR, f), { catalogue, onWarning: () => {} });
    const head = header(text);
    assert.match(head, /https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/(issues|pull)\/\d+/, `${f}: no public thread in its header`);
    assert.match(head, /\d+\.\d+\.\d+/, `${f}: no version in its header`);
  }
});

test('every known-bug scenario that expects an anomaly has a control twin that extends it', () => {
  const parsed = files.map((f) => ({ f, doc: parse(readFileSync(join(DIR, f), 'utf8')) as { extends?: string; expect?: Record<string, unknown> } }));
  const parents = new Set(parsed.map((p) => p.doc.extends).filter(Boolean));
  for (const { f, doc } of parsed) {
    if (doc.extends) continue;
    const expectsAnomaly = JSON.stringify(doc.expect ?? {}).includes('>0');
    if (expectsAnomaly) assert.ok(parents.has(f), `${f} expects an anomaly but no scenario in the folder extends it`);
  }
});
