/** No scenario a suite judges runs on a test double (the memory broker): workloads/ never names one. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { brokerNames, loadBroker } from '../../harness/broker/registry.ts';
import { ROOT } from '../runner/helpers.ts';

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? yamlFiles(p) : /\.ya?ml$/.test(n) ? [p] : [];
  });
}

test('no scenario under workloads/ uses a test-double broker', async () => {
  const doubles = new Set<string>();
  for (const b of brokerNames()) if ((await loadBroker(b)).testDouble) doubles.add(b);
  assert.ok(doubles.has('memory'), 'the memory broker should declare itself a test double');
  const files = yamlFiles(join(ROOT, 'workloads'));
  assert.ok(files.length > 40);
  for (const f of files) {
    const kind = (parse(readFileSync(f, 'utf8')) as { broker?: { kind?: string } } | null)?.broker?.kind;
    assert.ok(!kind || !doubles.has(kind), `${f} runs on the test double "${kind}"`);
  }
});
