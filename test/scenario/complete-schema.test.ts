/**
 * The published scenario schema is complete for editors: the broker section per `broker.kind`
 * and each fault per `kind`, from the broker modules' and fault kinds' own schemas (every field
 * of theirs is there, and nothing else is accepted), and every scenario file of the project
 * validates against it, twins (`extends:`) included.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { SCHEMA_FILE } from '../../harness/scenario/schema.ts';
import { brokerDef, faultDef } from '../../harness/scenario/complete-schema.ts';
import { brokerNames, brokerSettingsSchema, loadBroker } from '../../harness/broker/registry.ts';
import { faultKinds } from '../../harness/faults/registry.ts';
import { ROOT } from '../runner/helpers.ts';

const published = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'));
const validate = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, discriminator: true, allErrors: true }).compile(published);
const scenario = (broker: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  broker,
  workload: { rate: { kind: 'fixed', perSecond: 10 }, durationMs: '5s' },
  ...extra,
});

/** Every property path of a schema (`producer.idempotent`), through nested objects. */
function paths(schema: any, prefix = ''): string[] {
  return Object.entries((schema?.properties ?? {}) as Record<string, any>).flatMap(([k, p]) => [prefix + k, ...(k === 'brokerConfig' ? [] : paths(p, `${prefix}${k}.`))]);
}

/** The same paths in the published copy (a duration field's number is in its anyOf). */
function publishedPaths(schema: any, prefix = ''): string[] {
  return Object.entries((schema?.properties ?? {}) as Record<string, any>).flatMap(([k, p]) => [prefix + k, ...(k === 'brokerConfig' ? [] : publishedPaths(p.anyOf?.[0] ?? p, `${prefix}${k}.`))]);
}

test('every broker setting of every broker module is in the published schema, and a kind\'s section is closed', async () => {
  const kinds = brokerNames();
  assert.deepEqual(published.$defs.scenario.properties.broker.properties.kind.enum, kinds);
  for (const kind of kinds) {
    const own = (await loadBroker(kind)).settingsSchema;
    assert.equal(await brokerSettingsSchema(kind), own, `${kind}: the module's settingsSchema is not the one its settings.ts exports (the published schema is made from that)`);
    const def = published.$defs[brokerDef(kind)];
    assert.ok(def, `no ${brokerDef(kind)} in the published schema`);
    assert.deepEqual(publishedPaths(def).sort(), paths(own).sort(), `${kind}: the published settings differ from the module's settingsSchema`);
    assert.equal(validate(scenario({ kind })), true, `${kind}: ${JSON.stringify(validate.errors)}`);
    assert.equal(validate(scenario({ kind, notASetting: 1 })), false, `${kind}: an unknown setting passes`);
    // A producer's overrides are the kind's settings too.
    const producer = { name: 'p', broker: { notASetting: 1 } };
    assert.equal(validate(scenario({ kind }, { workload: { ...scenario({}).workload, producers: [producer] } })), false, `${kind}: an unknown override passes`);
  }
  assert.equal(validate(scenario({ kind: 'nats' })), false, 'a broker kind that is not a folder under brokers/');
  // `...Ms` settings take durations, as the loader does; a setting's own range still holds for a number.
  assert.equal(validate(scenario({ kind: 'memory', visibilityMs: '5s' })), true);
  assert.equal(validate(scenario({ kind: 'memory', visibilityMs: 'soon' })), false);
  assert.equal(validate(scenario({ kind: 'memory', visibilityMs: 1 })), false);
  assert.equal(validate(scenario({ kind: 'memory', mode: 'topic' })), false);
});

test('every fault kind\'s own fields are in the published schema, and a fault of a kind is closed', async () => {
  const kinds = await faultKinds();
  assert.deepEqual(published.$defs.fault.properties.kind.enum, [...kinds.keys()].sort());
  for (const [kind, k] of kinds) {
    const def = published.$defs[faultDef(kind)];
    assert.ok(def, `no ${faultDef(kind)} in the published schema`);
    for (const field of [...Object.keys((k.schema.properties ?? {}) as object), 'name', 'kind', 'atMs', 'durationMs']) {
      assert.ok(field in def.properties, `${kind}: field ${field} is missing from the published schema`);
    }
    const fault = { name: 'f', kind, atMs: '1s', notAField: true };
    assert.equal(validate(scenario({ kind: 'memory' }, { faults: [fault] })), false, `${kind}: an unknown field passes`);
  }
  const stall = { name: 's', kind: 'stall', atMs: '1s', durationMs: '2s' };
  assert.equal(validate(scenario({ kind: 'memory' }, { faults: [{ ...stall, consumer: 'c1' }] })), true, JSON.stringify(validate.errors));
  assert.equal(validate(scenario({ kind: 'memory' }, { faults: [stall] })), false, 'stall without its consumer');
  assert.equal(validate(scenario({ kind: 'memory' }, { faults: [{ ...stall, kind: 'stal', consumer: 'c1' }] })), false, 'an unknown kind');
});

test('every scenario file of the project validates against the published schema, twins included', () => {
  const files = (readdirSync(join(ROOT, 'workloads'), { recursive: true }) as string[]).filter((f) => f.endsWith('.yaml')).map((f) => join(ROOT, 'workloads', f));
  let twins = 0;
  let checked = 0;
  for (const f of files) {
    const data = parse(readFileSync(f, 'utf8'));
    if ('vary' in data || 'linked' in data) continue; // a matrix file (its axes plain or linked only)
    checked++;
    if ('extends' in data) twins++;
    assert.ok(validate(data), `${f}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
  }
  assert.ok(checked > 100 && twins > 20, `${checked} files, ${twins} twins`);
  // A twin states only what differs; without extends, broker and workload are required and null removes nothing.
  assert.equal(validate({ extends: 'p.yaml', broker: { client: 'confluent' }, consumers: { strategy: null }, faults: [{ name: 'k', atMs: '2s' }] }), true, JSON.stringify(validate.errors));
  assert.equal(validate({ extends: 'p.yaml', broker: { kind: 'kafka', typo: 1 } }), false);
  assert.equal(validate({ consumers: { strategy: 'versioned' } }), false);
  assert.equal(validate(scenario({ kind: 'kafka' }, { consumers: { strategy: null } })), false);
});
