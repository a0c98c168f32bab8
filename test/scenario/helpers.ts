/** Shared set-up for the scenario tests: a catalogue with a fake broker and two fault kinds. */
import { fileURLToPath } from 'node:url';
import type { BrokerSettings } from '../../harness/broker/contract.ts';
import type { LoadOptions } from '../../harness/scenario/load.ts';
import { GATEWAY_MODES } from '../../harness/gateway/registry.ts';
import type { BrokerSchemaModule, CatalogueFaultKind, ScenarioCatalogue } from '../../harness/scenario/catalogue.ts';
import type { SchemaObject } from '../../harness/scenario/values.ts';
import { STRATEGIES } from '../../harness/consumer/strategies/schema.ts';
import { CONCURRENCY_MODES } from '../../harness/consumer/concurrency/registry.ts';

export const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

export const fakeBroker = {
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['kind'],
    properties: { kind: { const: 'fake' }, partitions: { type: 'integer', minimum: 1 }, acks: { enum: ['all', 'leader'] } },
  } as SchemaObject,
  resolveSettings: (s: BrokerSettings): BrokerSettings => ({ partitions: 1, acks: 'all', ...s }),
  /** 5 s, plus the drain's 5 s margin: a 10 s drain by default. */
  redeliveryHorizonMs: (s: BrokerSettings): number => (s.acks === 'leader' ? 60_000 : 5_000),
};

export const faultKinds = new Map<string, CatalogueFaultKind>([
  ['stall', { schema: { type: 'object', properties: { consumer: { type: 'string' } }, required: ['consumer'] } }],
  ['kill-consumer', { schema: { type: 'object', properties: { consumer: { type: 'string' }, restart: { type: 'boolean' } }, required: ['consumer'] } }],
]);

/**
 * A catalogue for tests: `brokers` by kind (a kind mapped to undefined is installed but has no
 * module: its section is not checked), the given fault kinds, the strategies and modes of this tree.
 */
export function catalogue(
  brokers: Record<string, BrokerSchemaModule | undefined> = { fake: fakeBroker, later: undefined },
  faults: ReadonlyMap<string, CatalogueFaultKind> = faultKinds,
): ScenarioCatalogue {
  return {
    brokers: { names: () => Object.keys(brokers).sort(), load: async (kind) => brokers[kind] },
    faults,
    strategies: new Map([...STRATEGIES].map(([name, st]) => [name, { description: st.description, unfit: st.unfit?.bind(st) }])),
    modes: new Map(CONCURRENCY_MODES.map((m) => [m.name, { description: m.description }])),
    gatewayModes: new Map(GATEWAY_MODES.map((m) => [m.name, m])),
  };
}

/** Only the fake broker exists (and "later", without a module); fault kinds are the two above. */
export const options: Omit<LoadOptions, 'file'> = { catalogue: catalogue() };
