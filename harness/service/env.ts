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
  return { ...process.env, ...i.link.env(i.endpoint, i.settings, i.names, i.log), ...i.spec.env, [ENV.run]: i.names.runId, [ENV.dir]: serviceDir(i.runDir) };
}
