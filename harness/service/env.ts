/**
 * The environment a consumer under test runs in (its build too): convoy's own environment, the
 * broker's connection (ServiceLink.env), the scenario's `env`, and the run's service folder.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrokerSettings, Endpoint, RunNames, ServiceLink } from '../broker/contract.ts';
import type { ServiceSpec } from '../spec/types.ts';
import { ENV } from './report.ts';

export interface ServiceEnvInput {
  link: ServiceLink;
  endpoint: Endpoint;
  settings: BrokerSettings;
  names: RunNames;
  spec: ServiceSpec;
  runDir: string;
  log(line: string): void;
}

/** The run's folder for the service's own files (its build's output). */
export function serviceDir(runDir: string): string {
  const dir = join(runDir, 'service');
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function serviceEnv(i: ServiceEnvInput): Record<string, string | undefined> {
  const link = i.link.env(i.endpoint, i.settings, i.names, i.log);
  // The documented variables are the link's list (docs/consumer-under-test.md is checked against it).
  const undeclared = Object.keys(link).filter((k) => !(k in i.link.variables));
  if (undeclared.length) throw new Error(`the broker's service link sets ${undeclared.join(', ')}, not in its variables`);
  return { ...process.env, ...link, ...i.spec.env, [ENV.run]: i.names.runId, [ENV.dir]: serviceDir(i.runDir) };
}
