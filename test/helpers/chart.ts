/**
 * The Helm chart (deploy/helm/convoy) rendered by the real helm, for the tests that check it
 * and the one that runs its command lines: `helm template` with a values file, parsed into
 * manifests, and the containers of one kind of object.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, stringify } from 'yaml';

export const CHART = fileURLToPath(new URL('../../deploy/helm/convoy', import.meta.url));
export const RELEASE = 'bench';
export const NAMESPACE = 'loadtest';

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  ports?: Array<{ name?: string; containerPort: number }>;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: Array<{ name: string; [source: string]: unknown }>;
  securityContext?: Record<string, unknown>;
}

/** Writes the values to a file and runs helm with them; the result of the command. */
export function helmWith(helm: string, args: string[], values: object): { status: number | null; out: string } {
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-chart-')), 'values.yaml');
  writeFileSync(file, stringify(values));
  const r = spawnSync(helm, [...args, '--values', file], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}${r.error?.message ?? ''}` };
}

/** `helm template` of the chart with these values: its YAML text and the manifests in it. */
export function render(helm: string, values: object): { text: string; manifests: Manifest[] } {
  const r = helmWith(helm, ['template', RELEASE, CHART, '--namespace', NAMESPACE], values);
  if (r.status !== 0) throw new Error(`helm template: ${r.out}`);
  const manifests = parseAllDocuments(r.out).map((d) => d.toJS() as Manifest | null).filter((m): m is Manifest => m !== null);
  return { text: r.out, manifests };
}

export function one(manifests: Manifest[], kind: string): Manifest {
  const found = manifests.filter((m) => m.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`);
  return found[0]!;
}

/** The pod template of a StatefulSet or a Job. */
export function podOf(m: Manifest): PodSpec {
  return (m as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec;
}

/** A container's whole command line, as the container runtime runs it (the image has no default for these). */
export function commandLine(c: Container): string[] {
  return [...(c.command ?? []), ...(c.args ?? [])];
}

/** Values every rendering needs: a token and a scenario. */
export const BASE_VALUES = {
  token: { value: 'chart-test-token' },
  runner: { scenario: { inline: 'name: from-the-chart\n' } },
};
