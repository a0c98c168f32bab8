/**
 * A consumer under test (consumers.service, docs/consumer-under-test.md): where its folder is,
 * and what such a scenario cannot ask for (a broker that cannot run one, a fault that acts
 * inside convoy's own handling, settings of convoy's consumer that no longer apply).
 */
import { dirname, resolve } from 'node:path';
import type { Scenario } from '../spec/types.ts';
import type { BrokerSchemaModule, CatalogueFaultKind } from './catalogue.ts';
import { unknownPlaceholders } from '../service/message.ts';
import { positionOf, type Origin } from './yaml-source.ts';

/**
 * consumers.service.cwd made absolute: relative to the folder of the file that wrote it (or, without
 * one, that wrote the command), so a scenario that extends another elsewhere keeps its service's
 * folder; the working folder for a scenario without a file.
 */
export function resolveServiceCwd(s: Scenario, origin: Origin | undefined): void {
  const service = s.consumers.service;
  if (!service) return;
  const file = origin ? positionOf(origin, service.cwd !== undefined ? 'consumers.service.cwd' : 'consumers.service.command').file : undefined;
  const base = file && file !== '<scenario>' ? dirname(resolve(file)) : process.cwd();
  service.cwd = resolve(base, service.cwd ?? '.');
}

export function serviceProblems(s: Scenario, raw: Record<string, any>, broker: BrokerSchemaModule | undefined, kinds: ReadonlyMap<string, CatalogueFaultKind>): string[] {
  if (!s.consumers.service) return [];
  const errors: string[] = [];
  // Which brokers can run one is each broker module's own `service` link: no list here.
  if (broker && !broker.service) errors.push(`consumers.service: the ${s.broker.kind} broker cannot run a consumer under test (it has no connection to hand a service)`);
  s.faults.forEach((f, i) => {
    const kind = kinds.get(f.kind);
    if (kind?.worker?.consumer && !kind.underTest) errors.push(`faults[${i}].kind: ${f.kind} acts inside convoy's own consumer; a consumer under test takes ${[...kinds].filter(([, k]) => k.underTest).map(([n]) => n).sort().join(', ')} and the faults outside the consumers`);
  });
  for (const field of ['strategy', 'concurrency', 'handler', 'poison', 'overrides'] as const) {
    if (raw.consumers?.[field] !== undefined) errors.push(`consumers.${field}: convoy's own consumer's setting; with consumers.service the service decides this`);
  }
  const unknown = unknownPlaceholders(s.consumers.service.payload ?? '');
  if (unknown.length) errors.push(`consumers.service.payload: no field ${unknown.map((u) => `{{${u}}}`).join(', ')}; a template takes {{key}}, {{seq}}, {{producer}}, {{run}}`);
  const asked = s.consumers.service.state;
  if (asked && (asked.command === undefined) === (asked.url === undefined)) errors.push('consumers.service.state: give a `command` or a `url`, one of them');
  const state = s.expect['wrong-state'];
  const judged = (Array.isArray(state) ? state : state === undefined ? [] : [state]).some((e) => String(typeof e === 'object' ? e.expect : e) !== 'any');
  if (judged && !s.consumers.service.state) errors.push("expect.wrong-state: the service's final state is compared only when consumers.service.state says how to ask for it");
  if (s.workload.gateway) errors.push('consumers.service: not with workload.gateway (the order service publishes; a consumer under test reads convoy\'s producers)');
  return errors;
}
