/** The history header (format and version): a v1 header reads as a history without one; an unknown version is refused. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkFile, checkHistoryVersion } from '../../harness/checker/readFile.ts';
import { historyHeader, HISTORY_VERSION } from '../../harness/history/schema.ts';
import { InputError } from '../../harness/errors.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/run/history.jsonl', import.meta.url));

test('a history with the header is checked exactly as the same history without it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-history-version-'));
  const withHeader = join(dir, 'h.jsonl');
  writeFileSync(withHeader, JSON.stringify(historyHeader()) + '\n' + readFileSync(EXAMPLE, 'utf8'));
  assert.equal(await checkHistoryVersion(withHeader), HISTORY_VERSION);
  assert.equal(await checkHistoryVersion(EXAMPLE), 1, 'no header: the first version');
  const [a, b] = await Promise.all([checkFile(EXAMPLE, { lenient: true }), checkFile(withHeader, { lenient: true })]);
  assert.ok(a.anomalies && Object.keys(a.anomalies).length > 5);
  assert.deepEqual(b.anomalies, a.anomalies);
});

test('a version this convoy does not read, or another format, is refused with the line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-history-version-'));
  const future = join(dir, 'future.jsonl');
  writeFileSync(future, '{"type":"header","format":"convoy.history","version":99}\n{"type":"send","key":"k","producer":"p","seq":0,"at":1}\n');
  await assert.rejects(checkFile(future), (e: InputError) => {
    assert.match(e.message, /future\.jsonl:1: history format version 99 is not one this convoy reads \(1, 2\)/);
    assert.equal(e.exitCode, 2);
    return true;
  });
  const other = join(dir, 'other.jsonl');
  writeFileSync(other, '{"type":"header","format":"something.else","version":1}\n');
  await assert.rejects(checkFile(other), /other\.jsonl:1: not a convoy history/);
});
