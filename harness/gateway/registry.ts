/**
 * Every order-service mode: one file each in ./modes/, found when this module loads (the
 * scenario schema lists them), like the consumers' concurrency modes.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GatewayMode } from './contract.ts';
import { isModuleFile } from '../module-ext.ts';

const DIR = fileURLToPath(new URL('./modes/', import.meta.url));

/** The modes in `dir` (tests pass a folder of their own), by name. */
export async function loadGatewayModes(dir = DIR): Promise<GatewayMode[]> {
  const modes: GatewayMode[] = [];
  for (const f of readdirSync(dir).filter(isModuleFile).sort()) {
    const mod = (await import(join(dir, f))) as { default?: GatewayMode };
    if (mod.default?.name) modes.push(mod.default);
  }
  return modes.sort((a, b) => a.name.localeCompare(b.name));
}

export const GATEWAY_MODES: readonly GatewayMode[] = await loadGatewayModes();

export function gatewayMode(name: string, modes: readonly GatewayMode[] = GATEWAY_MODES): GatewayMode {
  const mode = modes.find((m) => m.name === name);
  if (!mode) throw new Error(`no order-service mode "${name}" (have ${modes.map((m) => m.name).join(', ')})`);
  return mode;
}

/** Connections autocannon may open: it refuses none, but beyond this the driver is the bottleneck. */
export const MAX_CONNECTIONS = 1024;
export const MAX_INSTANCES = 16;

/** `workload.gateway` of the scenario schema, with the modes as the values of `mode`. */
export function gatewaySchema(modes: readonly GatewayMode[] = GATEWAY_MODES): Record<string, unknown> {
  return {
    type: 'object',
    description:
      'An order service under HTTP load instead of producers (harness/gateway/): `instances` processes of a small HTTP service (POST /orders/{id}/events) sharing one SQLite store, publishing through the broker adapters, driven by autocannon at `workload.rate` (fixed). Exclusive with `workload.producers`.',
    additionalProperties: false,
    required: ['mode'],
    properties: {
      instances: { type: 'integer', minimum: 1, maximum: MAX_INSTANCES, default: 2, description: 'Service instances, separate processes i1..iN. Default 2.' },
      mode: { enum: modes.map((m) => m.name), description: modes.map((m) => `${m.name}: ${m.description}`).join('; ') + '.' },
      connections: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_CONNECTIONS,
        default: 16,
        description: 'autocannon connections, each a closed loop (one request at a time); no more than the rate per second. Default 16.',
      },
      relays: {
        type: 'integer',
        minimum: 1,
        maximum: 64,
        description: "Outbox mode: relay processes, each publishing the keys laneOf(key, relays) gives it. Default the broker's lanes; needed where the keys are the lanes (SQS FIFO groups, Service Bus sessions, Pub/Sub ordering keys).",
      },
      timeoutS: { type: 'integer', minimum: 1, maximum: 60, default: 10, description: "autocannon's request timeout, s. Default 10." },
    },
  };
}
