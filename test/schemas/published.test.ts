/** Each published JSON Schema is generated from its one source, is current, and follows the $id convention. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { PUBLISHED, SCHEMA_ID_BASE, schemaText } from '../../harness/schemas/publish.ts';
import { historyHeader } from '../../harness/history/schema.ts';

const root = (p: string) => fileURLToPath(new URL(`../../${p}`, import.meta.url));

test('every published schema is current (regenerate: node --import tsx harness/schemas/publish.ts)', async () => {
  for (const p of PUBLISHED) assert.equal(readFileSync(root(p.path), 'utf8'), schemaText(await p.schema()), `${p.path} is stale`);
});

test('every published schema has an $id of the one convention, naming its file', () => {
  const all = [...PUBLISHED.map((p) => p.path), 'results/schema/result.v1.json'];
  for (const path of all) {
    const s = JSON.parse(readFileSync(root(path), 'utf8')) as { $id: string };
    assert.match(s.$id, new RegExp(`^${SCHEMA_ID_BASE.replace(/\./g, '\\.')}[a-z-]+\\.v[0-9]+\\.json$`), path);
    const shape = /([a-z-]+)\.v\d+\.json$/.exec(s.$id)![1];
    assert.ok(path.includes(shape), `${path}: $id ${s.$id}`);
  }
});

test('the history schema accepts every line of a real history and the header, and refuses a malformed event', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const validate = ajv.compile(JSON.parse(readFileSync(root('results/schema/history.v2.json'), 'utf8')));
  const lines = readFileSync(root('examples/run/history.jsonl'), 'utf8').split('\n').filter(Boolean);
  assert.ok(lines.length > 1000);
  for (const line of lines) assert.ok(validate(JSON.parse(line)), `${line}: ${JSON.stringify(validate.errors?.[0])}`);
  assert.ok(validate(historyHeader()));
  assert.equal(validate({ type: 'send', key: 'k1', producer: 'p', seq: 'one', at: 1 }), false);
});
