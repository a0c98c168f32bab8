import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { scenarioSchema, SCHEMA_FILE } from '../../harness/scenario/schema.ts';
import { THRESHOLD_NAMES } from '../../harness/checker/thresholds.ts';
import { ANOMALY_TYPES } from '../../harness/checker/anomaly-types.ts';
import { PUBLISHED, schemaText } from '../../harness/schemas/publish.ts';

test('the published scenario.schema.json is the schema in schema.ts (completed with the plug-ins\' own schemas), saying it is generated from it', async () => {
  const published = readFileSync(SCHEMA_FILE, 'utf8');
  const entry = PUBLISHED.find((p) => SCHEMA_FILE.endsWith(p.path))!;
  assert.equal(published, schemaText(await entry.schema()), 'regenerate it: node --import tsx harness/schemas/publish.ts');
  const { $comment, $defs } = JSON.parse(published);
  assert.match($comment, /^Generated from harness\/scenario\/schema\.ts/);
  // A scenario file (no extends) is checked against schema.ts's sections, as the loader has them.
  const { $schema: _s, $id: _i, $defs: defs, if: _if, then: _then, ...file } = JSON.parse(JSON.stringify(scenarioSchema));
  assert.deepEqual(Object.keys($defs.scenario.properties), Object.keys(file.properties));
  for (const name of Object.keys(defs)) assert.ok(name in $defs, name);
});

test('the published schema compiles in a strict, stand-alone validator', () => {
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, discriminator: true });
  const validate = ajv.compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')));
  assert.equal(validate({ broker: { kind: 'kafka' }, workload: { rate: { kind: 'fixed', perSecond: 10 }, durationMs: '5s' } }), true);
  assert.equal(validate({ broker: { kind: 'kafka' }, workload: { rate: { kind: 'fixed', perSecond: 10 }, durationMs: '5s', typo: 1 } }), false);
});

test('every object is closed except the broker section and a fault (checked by their own schemas)', () => {
  const open: string[] = [];
  const walk = (s: unknown, path: string) => {
    if (Array.isArray(s)) return s.forEach((x, i) => walk(x, `${path}/${i}`));
    if (typeof s !== 'object' || s === null) return;
    const o = s as Record<string, unknown>;
    if (o.type === 'object' && o.additionalProperties !== false && !path.endsWith('/properties/overrides')) open.push(path);
    for (const [k, v] of Object.entries(o)) if (k !== 'default') walk(v, `${path}/${k}`);
  };
  walk(scenarioSchema, '#');
  assert.deepEqual(open.sort(), [
    '#/$defs/consumers/properties/strategy/anyOf/1', // a strategy and its options: closed in each branch
    '#/$defs/distribution',
    '#/$defs/fault',
    '#/$defs/producer/properties/broker',
    '#/$defs/producer/properties/processBroker/items',
    '#/$defs/rate',
    '#/$defs/service/properties/env', // the service's environment: any variable names, string values
    '#/$defs/size',
    '#/$defs/time',
    '#/properties/broker',
  ]);
  // The discriminated unions are closed in each branch.
  for (const u of ['distribution', 'rate', 'size', 'time'] as const) {
    for (const b of scenarioSchema.$defs[u].oneOf) assert.equal(b.additionalProperties, false);
  }
  assert.deepEqual(Object.keys(scenarioSchema.$defs.expect.properties), [...ANOMALY_TYPES, 'wrong-state', ...THRESHOLD_NAMES, 'duplicate-versions']);
});

test('every workload file names the published schema for editors (yaml-language-server), by a path that exists', async () => {
  const { readdirSync, existsSync } = await import('node:fs');
  const { dirname, join, resolve } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const root = fileURLToPath(new URL('../../workloads/', import.meta.url));
  const files = [...readdirSync(root).map((f) => join(root, f)), ...readdirSync(join(root, 'nightly')).map((f) => join(root, 'nightly', f))].filter((f) => f.endsWith('.yaml'));
  assert.ok(files.length > 40);
  for (const f of files) {
    const first = readFileSync(f, 'utf8').split('\n')[0];
    const m = /^# yaml-language-server: \$schema=(\S+)$/.exec(first);
    assert.ok(m, `${f}: first line is not the schema line: ${first}`);
    assert.equal(resolve(dirname(f), m[1]), SCHEMA_FILE, `${f}: ${m[1]} is not the published schema`);
    assert.ok(existsSync(resolve(dirname(f), m[1])));
  }
});

test('the published schema accepts a twin that names its parent and states only what differs', () => {
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, discriminator: true });
  const validate = ajv.compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')));
  assert.equal(validate({ extends: 'parent.yaml', consumers: { strategy: 'versioned' } }), true);
  assert.equal(validate({ consumers: { strategy: 'versioned' } }), false, 'without extends, broker and workload are required');
});
