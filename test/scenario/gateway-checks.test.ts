/**
 * The order service's modes reach the loader in its catalogue, as fault kinds and strategies
 * do: the schema's `workload.gateway.mode` values, a mode's relays and what a broker cannot serve
 * all come from the catalogue handed in, not from the gateway's own registry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseScenario } from '../../harness/scenario/load.ts';
import type { CatalogueGatewayMode } from '../../harness/scenario/catalogue.ts';
import { catalogue } from './helpers.ts';

const scenario = (mode: string, extra = '') => `
broker: { kind: fake }
workload:
  keys: { count: 10 }
  rate: { kind: fixed, perSecond: 100 }
  durationMs: 1000
  gateway: { mode: ${mode}${extra} }
`;

/** Rejected with a problem line matching `re` (the error's detail has the lines). */
const problem = (re: RegExp) => (e: unknown) => {
  const lines = ((e as { detail?: string[] }).detail ?? []).join('\n');
  assert.match(lines, re);
  return true;
};

const withModes = (modes: Record<string, CatalogueGatewayMode>) => ({ catalogue: { ...catalogue(), gatewayModes: new Map(Object.entries(modes)) } });

test("a gateway mode is one of the catalogue's, whatever the gateway's own registry has", async () => {
  const modes = withModes({ ledger: {} });
  await assert.rejects(parseScenario(scenario('outbox'), modes), problem(/workload\.gateway\.mode: expected one of ledger; got "outbox"/));
  const loaded = await parseScenario(scenario('ledger'), modes);
  assert.equal(loaded.scenario.workload.gateway?.mode, 'ledger');
});

test("relays and what a broker cannot serve are the catalogue's mode's to say", async () => {
  // The mode is handed the scenario's relays: here it serves 2 of them and nothing else.
  const modes = withModes({ ledger: {}, lanes: { relay: true, unservable: (_caps, broker, relays) => (relays === 2 ? undefined : `${broker} has no lanes for ${relays} relays`) } });
  await assert.rejects(parseScenario(scenario('ledger', ', relays: 2'), modes), problem(/workload\.gateway\.relays: only the outbox mode has relays, got mode ledger/));
  await assert.rejects(parseScenario(scenario('lanes', ', relays: 3'), modes), problem(/workload\.gateway\.mode: fake has no lanes for 3 relays/));
  await assert.rejects(parseScenario(scenario('lanes'), modes), problem(/workload\.gateway\.mode: fake has no lanes for undefined relays/));
  assert.equal((await parseScenario(scenario('lanes', ', relays: 2'), modes)).scenario.workload.gateway?.relays, 2);
});
