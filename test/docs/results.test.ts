/**
 * docs/results.md names every file a run folder holds: a memory-broker run's folder is listed
 * and each entry must match a name in the page's table (`<worker>.log` stands for any name), and
 * the processes' history parts (`history/`) are gone once the run closed, merged into
 * history.jsonl. Cost: one 0.5 s memory run in this process and its report, about 5 s (9 s at load 13).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runHere } from '../../brokers/memory/test/run-here.ts';
import { writeReport } from '../../harness/report/render.ts';
import { ROOT } from '../runner/helpers.ts';

/** The names in the first column of the page's file table, as patterns (`<x>` matches any name part). */
export function documentedNames(page: string): RegExp[] {
  const rows = page.split('\n').filter((l) => l.startsWith('| `'));
  return rows.map((row) => {
    const name = /^\| `([^`]+)`/.exec(row)![1];
    const source = name.split(/<[^>]+>/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+');
    return new RegExp(`^${source}$`);
  });
}

/** The folder's entries (a folder as `name/`) that no documented name matches. */
export function undocumented(entries: string[], names: RegExp[]): string[] {
  return entries.filter((e) => !names.some((n) => n.test(e)));
}

const page = readFileSync(join(ROOT, 'docs/results.md'), 'utf8');

test('every file a memory run writes is named in docs/results.md, and no history/ parts are left', { timeout: 60_000 }, async () => {
  const { runDir } = await runHere(join(ROOT, 'test/docs/fixtures/memory-small.yaml'));
  writeReport(runDir); // what `convoy run` does after the run (its afterRun)
  const entries = readdirSync(runDir, { withFileTypes: true }).map((d) => (d.isDirectory() ? `${d.name}/` : d.name));
  for (const f of ['result.json', 'history.jsonl', 'record.json', 'report.html', 'run.log', 'state.sqlite']) assert.ok(entries.includes(f), `${f} not written: ${entries.join(', ')}`);
  assert.ok(!entries.includes('history/'), 'the history parts were left beside history.jsonl');
  assert.deepEqual(undocumented(entries, documentedNames(page)), []);
  // The merged file holds every process's lines: the runner's, the producer's and the consumer's.
  const types = new Set(readFileSync(join(runDir, 'history.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { type: string }).type));
  for (const t of ['header', 'send', 'ack', 'process', 'mark']) assert.ok(types.has(t), `no ${t} line in history.jsonl`);
});

test('the check finds a file the page does not name', () => {
  const names = documentedNames(page);
  assert.ok(names.length >= 8, `only ${names.length} names read from the table`);
  assert.deepEqual(undocumented(['result.json', 'c1.log', 'p-producer-1.log', 'brokers/', 'timings.csv', 'history/'], names), ['timings.csv', 'history/']);
});
