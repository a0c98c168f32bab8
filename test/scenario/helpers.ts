/** Shared set-up for the scenario tests: a fake broker module and fault kinds, injected. */
import { fileURLToPath } from 'node:url';
import type { BrokerSettings } from '../../harness/broker/contract.ts';
import type { LoadOptions, SchemaObject } from '../../harness/scenario/load.ts';

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

export const faultSchemas = new Map<string, SchemaObject>([
  ['stall', { type: 'object', properties: { consumer: { type: 'string' } }, required: ['consumer'] }],
  ['kill-consumer', { type: 'object', properties: { consumer: { type: 'string' }, restart: { type: 'boolean' } }, required: ['consumer'] }],
]);

/** Only the fake broker exists; fault kinds are the two above. */
export const options: Omit<LoadOptions, 'file'> = {
  broker: async (kind) => (kind === 'fake' ? fakeBroker : undefined),
  faultSchemas,
};
