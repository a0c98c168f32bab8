/** A network fault's attributes are checked against its toxic's: a typo or a missing one is refused with the path. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenarioFile } from '../../harness/scenario/load.ts';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';

async function problems(fault: string): Promise<string[]> {
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-network-attrs-')), 's.yaml');
  writeFileSync(file, ['broker: { kind: kafka }', 'workload: { keys: { count: 5 }, rate: { kind: fixed, perSecond: 10 }, durationMs: 4s }', 'consumers: { processes: 1 }', 'faults:', `  - ${fault}`].join('\n'));
  try {
    await loadScenarioFile(file, { catalogue: await scenarioCatalogue(), onWarning: () => {} });
    return [];
  } catch (err) {
    return (err as { detail?: string[] }).detail ?? [(err as Error).message];
  }
}

test('a misspelt attribute is named with what the toxic takes and the likely name; a needed one missing is named', async () => {
  const typo = await problems('{ name: slow, kind: network, toxic: latency, attributes: { latncy: 200 }, atMs: 1s, durationMs: 1s }');
  assert.ok(typo.some((p) => /faults\[0\]\.attributes\.latncy: a latency toxic takes latency \(ms\), jitter \(ms\) \(did you mean latency\?\)/.test(p)), typo.join('\n'));
  assert.ok(typo.some((p) => /faults\[0\]\.attributes: a latency toxic needs latency \(ms\); without it it does nothing/.test(p)), typo.join('\n'));
  assert.deepEqual(await problems('{ name: slow, kind: network, toxic: latency, attributes: { latency: 200, jitter: 20 }, atMs: 1s, durationMs: 1s }'), []);
  assert.deepEqual(await problems('{ name: cut, kind: network, toxic: timeout, atMs: 1s, durationMs: 1s }'), [], 'timeout 0 is a valid default: held until the fault ends');
  const down = await problems('{ name: cut, kind: network, toxic: down, attributes: { rate: 1 }, atMs: 1s, durationMs: 1s }');
  assert.ok(down.some((p) => /attributes\.rate: a down fault takes no attributes/.test(p)), down.join('\n'));
});
