/**
 * The checks that need the broker and the fault kinds, run before anything starts: each fault
 * against the broker's capabilities with the scenario's settings on the target runtime, and
 * against the scenario's own consumers and producers. `convoy validate` and `convoy run` share
 * them through the scenario loader.
 */
import type { BrokerCapabilities, RuntimeKind } from '../broker/contract.ts';
import type { FaultKind, FaultScope } from '../faults/contract.ts';
import type { Scenario } from '../spec/types.ts';
import type { CatalogueGatewayMode } from './catalogue.ts';
import { relayCount } from '../gateway/relays.ts';

/** Where the scenario is meant to run. */
export interface Target {
  runtime: RuntimeKind;
  /** `--allow-destructive`: faults that change or hurt an external broker are allowed. */
  allowDestructive: boolean;
}

export type CheckedFaultKind = Partial<Pick<FaultKind, 'destructive' | 'check' | 'warn'>>;

/** What every fault of the scenario can know before anything starts, but its path. */
function scopeOf(s: Scenario, target: Target, capabilities: BrokerCapabilities | undefined, gatewayModes: ReadonlyMap<string, CatalogueGatewayMode>): Omit<FaultScope, 'path'> {
  const consumers = Array.from({ length: s.consumers.processes }, (_, i) => `c${i + 1}`);
  const producers = s.workload.producers.map((p) => p.name);
  const producerProcesses = Object.fromEntries(s.workload.producers.map((p) => [p.name, p.processes]));
  const g = s.workload.gateway;
  const relays = g && gatewayModes.get(g.mode)?.relay ? Array.from({ length: relayCount(s, capabilities) }, (_, i) => `relay-${i + 1}`) : [];
  return { runtime: target.runtime, broker: s.broker.kind, capabilities, consumers, producers, producerProcesses, relays };
}

export function faultProblems(
  s: Scenario,
  target: Target,
  capabilities: BrokerCapabilities | undefined,
  kinds: ReadonlyMap<string, CheckedFaultKind>,
  gatewayModes: ReadonlyMap<string, CatalogueGatewayMode>,
): string[] {
  const common = scopeOf(s, target, capabilities, gatewayModes);
  return s.faults.flatMap((f, i) => {
    const kind = kinds.get(f.kind);
    if (!kind) return [];
    const path = `faults[${i}]`;
    if (kind.destructive && target.runtime === 'external' && !target.allowDestructive) {
      return [`${path}: ${f.kind} (${f.name}) changes or hurts the target broker: refused on the external runtime without --allow-destructive`];
    }
    return kind.check?.(f, { path, ...common }) ?? [];
  });
}

/** Each fault kind's warnings about its faults (FaultKind.warn), for a scenario that passed faultProblems. */
export function faultWarnings(
  s: Scenario,
  target: Target,
  capabilities: BrokerCapabilities | undefined,
  kinds: ReadonlyMap<string, CheckedFaultKind>,
  gatewayModes: ReadonlyMap<string, CatalogueGatewayMode>,
  runEndMs: number | undefined,
): string[] {
  const common = scopeOf(s, target, capabilities, gatewayModes);
  const unseen = s.expect.unseen;
  const expectsUnseen = (Array.isArray(unseen) ? unseen : unseen === undefined ? [] : [unseen]).some((e) => String((e as { expect?: unknown }).expect ?? e) !== '0');
  return s.faults.flatMap((f, i) => kinds.get(f.kind)?.warn?.(f, { path: `faults[${i}]`, ...common, runEndMs, expectsUnseen }) ?? []);
}
