import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadScenarioFile } from '../../harness/scenario/load.ts';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';
import type { ExpectationSpec } from '../../harness/spec/types.ts';
import { ROOT } from '../runner/helpers.ts';
import { loadBroker } from '../../harness/broker/registry.ts';

interface Row {
  mode: string;
  scenario: string;
  broker: string;
  expects: string;
}

function rows(): Row[] {
  const text = readFileSync(join(ROOT, 'docs/coverage.md'), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| Failure mode') && !l.startsWith('| Defence') && !l.startsWith('|---'))
    .map((l) => l.split('|').slice(1, -1).map((c) => c.trim()))
    .map(([mode, scenario, broker, expects]) => ({ mode, scenario, broker, expects }));
}

/** Each expectation's value, with the strategy it judges (wrong-state; `live` when it names none). */
function expectedValues(spec: ExpectationSpec | ExpectationSpec[] | undefined, live: string): string[] {
  const list = spec === undefined ? [] : Array.isArray(spec) ? spec : [spec];
  return list.flatMap((e) => {
    const value = String(typeof e === 'object' ? e.expect : e);
    return [value, `${value} (${(typeof e === 'object' && e.strategy) || live})`];
  });
}

// The nightly suite first, then the other suites (workloads/partitions, workloads/known-bugs, ...).
const SCENARIO_DIRS = [join(ROOT, 'workloads/nightly'), join(ROOT, 'workloads'), ...readdirSync(join(ROOT, 'workloads'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join(ROOT, 'workloads', d.name))];

test('docs/coverage.md: every scenario it names exists and carries the expectation in its row', async () => {
  const all = rows();
  assert.ok(all.length > 30, `only ${all.length} rows parsed`);
  for (const row of all) {
    if (row.scenario === '—') {
      assert.ok(row.expects.length > 20, `"${row.mode}": a row without a scenario must say why`);
      continue;
    }
    const file = SCENARIO_DIRS.map((d) => join(d, `${row.scenario}.yaml`)).find(existsSync);
    assert.ok(file, `"${row.mode}": no scenario file ${row.scenario}.yaml`);
    const scenario = await loadScenarioFile(file, { catalogue: await scenarioCatalogue(), onWarning: () => {} });
    // "wrong-state 0 (commutative-dedup)": the value for that strategy.
    const [type, ...value] = row.expects.split(' ');
    const live = typeof scenario.consumers.strategy === 'string' ? scenario.consumers.strategy : scenario.consumers.strategy.kind;
    assert.ok(expectedValues(scenario.expect[type], live).includes(value.join(' ')), `${row.scenario}: expected ${row.expects}, has ${JSON.stringify(scenario.expect[type])}`);
    // The table names brokers as their modules' titles ("Service Bus (emulator)" for servicebus).
    const { title } = await loadBroker(scenario.broker.kind);
    assert.ok(row.broker === title || row.broker.startsWith(`${title} `), `${row.scenario}: broker ${scenario.broker.kind} ("${title}"), table says ${row.broker}`);
  }
});
