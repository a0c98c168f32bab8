// @needs root go
/**
 * A rehearsal of the Helm chart's deployment across real network boundaries: the command lines
 * of the rendered manifests (the agents' StatefulSet, the runner Job's wait for its agents, its
 * run and dashboard) run as they are, each in a Linux network namespace of its own
 * (test/helpers/netns.ts), as the pods would. What Kubernetes would run is what runs here, but
 * for these substitutions, and no others:
 *   - the image's folder /opt/convoy: this checkout;
 *   - the container paths of the volumes: folders of the test (the agents' emptyDir
 *     /var/lib/convoy-agent, one each; the results volume /var/lib/convoy/results; the scenario
 *     ConfigMap's mount /etc/convoy/scenario, holding the ConfigMap's data as files);
 *   - the agents' names under their headless Service: their namespaces' addresses;
 *   - the token Secret: its value, in the variable the manifests name;
 *   - the image's environment: the test's own (its PATH, where `node` and `sh` are found, and
 *     convoy's cache).
 * The release has no connection Secret: its runner uses the local runtime and a scenario of the
 * in-memory broker, which lives in the runner's process, so no broker host is needed. The
 * external runtime's command line (--runtime external --connection) is checked against convoy's
 * flags in chart.test.ts, not run here.
 *
 * Needs root (namespaces); skipped with the reason where it cannot run, except under
 * CONVOY_REQUIRE_NETNS=1 (CI), where that fails.
 */
import { after as afterAll, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chartTools } from '../../harness/setup/chart-tools.ts';
import { makeNetwork, netnsUnavailable, type Network } from '../helpers/netns.ts';
import { commandLine, NAMESPACE, one, podOf, render, type Container, type Manifest } from '../helpers/chart.ts';

const ROOT = new URL('../../', import.meta.url).pathname.replace(/\/$/, '');
const unavailable = netnsUnavailable();
const skip = unavailable && process.env.CONVOY_REQUIRE_NETNS !== '1' ? unavailable : false;

const SCENARIO = `name: chart-rehearsal
seed: 11
broker: { kind: memory, mode: partitioned, partitions: 3 }
workload:
  keys: { count: 20 }
  rate: { kind: fixed, perSecond: 200 }
  durationMs: 2s
  warmupMs: 500ms
consumers: { processes: 2, handler: { kind: constant, ms: 1 }, strategy: versioned }
expect: { reorder: 0, duplicate: 0, lost: 0, wrong-state: 0 }
`;
const VALUES = { token: { value: 'rehearsal-token' }, agents: { count: 2 }, runner: { scenario: { inline: SCENARIO }, dashboard: true } };

let net: Network | undefined;
const started: ChildProcess[] = [];
afterAll(async () => {
  for (const p of started) if (p.exitCode === null && p.signalCode === null) {
    p.kill('SIGTERM');
    await Promise.race([once(p, 'exit'), new Promise((r) => setTimeout(r, 5_000))]);
    p.kill('SIGKILL');
  }
  net?.close();
});

let manifests: Manifest[] = [];
before(() => {
  if (!skip) manifests = render(chartTools().helm, VALUES).manifests;
}, { timeout: 1_300_000 });

/** Runs a container's command line in a host's namespace, with the substitutions above. */
function runIn(host: { spawn: Network['hosts'][string]['spawn'] }, c: Container, paths: Array<[string, string]>, names: Array<[string, string]>, token: string): ChildProcess & { out: () => string } {
  const swap = (arg: string) => [...paths, ...names].reduce((a, [from, to]) => a.replaceAll(from, to), arg);
  const [command, ...args] = commandLine(c).map(swap);
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const e of c.env ?? []) env[e.name] = e.valueFrom?.secretKeyRef ? token : e.value;
  const child = host.spawn(command!, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }) as ChildProcess & { out: () => string };
  let out = '';
  for (const s of [child.stdout!, child.stderr!]) s.on('data', (d) => (out += d));
  child.out = () => out;
  started.push(child);
  return child;
}

test("the chart's agents, its runner's wait and its run and dashboard, each in a namespace of its own, pass", { skip, timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-rehearsal-'));
  const secret = one(manifests, 'Secret') as Manifest & { stringData: Record<string, string> };
  const token = Object.values(secret.stringData)[0]!;
  const agentSet = one(manifests, 'StatefulSet') as Manifest & { spec: { replicas: number; serviceName: string } };
  const jobPod = podOf(one(manifests, 'Job'));
  const configMap = one(manifests, 'ConfigMap') as Manifest & { data: Record<string, string> };
  const replicas = agentSet.spec.replicas;
  net = makeNetwork(['runner', ...Array.from({ length: replicas }, (_, i) => `agent-${i}`)]);

  // The agents' pod names under the headless Service, as the runner's lines write them.
  const names: Array<[string, string]> = Array.from({ length: replicas }, (_, i) => [`${agentSet.metadata.name}-${i}.${agentSet.spec.serviceName}.${NAMESPACE}.svc`, net!.hosts[`agent-${i}`]!.address]);
  const results = join(dir, 'results');
  const scenarioDir = join(dir, 'scenario');
  mkdirSync(scenarioDir);
  for (const [file, text] of Object.entries(configMap.data)) writeFileSync(join(scenarioDir, file), text);
  const image: [string, string] = ['/opt/convoy', ROOT];

  const agents = Array.from({ length: replicas }, (_, i) => runIn(net!.hosts[`agent-${i}`]!, podOf(agentSet).containers[0]!, [['/var/lib/convoy-agent', join(dir, `agent-${i}`)], image], names, token));
  for (const a of agents) {
    for (let t = 0; t < 300 && !/listening on/.test(a.out()) && a.exitCode === null; t++) await new Promise((r) => setTimeout(r, 100));
    assert.match(a.out(), /listening on 0\.0\.0\.0:\d+/);
  }

  const runnerPaths: Array<[string, string]> = [['/var/lib/convoy/results', results], ['/etc/convoy/scenario', scenarioDir], image];
  const wait = runIn(net.hosts.runner!, jobPod.initContainers![0]!, runnerPaths, names, token);
  const [waited] = await once(wait, 'exit');
  assert.equal(waited, 0, wait.out());

  const run = runIn(net.hosts.runner!, jobPod.containers[0]!, runnerPaths, names, token);
  const [code] = await once(run, 'exit');
  assert.equal(code, 0, run.out());
  const runDir = readdirSync(results).map((d) => join(results, d)).find((d) => existsSync(join(d, 'result.json')))!;
  const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as { verdict: { status: string } };
  assert.equal(result.verdict.status, 'pass');
  // The workers ran on the agents the chart placed them on: producers on agent 0, consumers on 1.
  const marks = readFileSync(join(runDir, 'history.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    .filter((e) => e.type === 'mark' && e.name === 'worker-started').map((m) => m.detail.agent as string);
  const port = podOf(agentSet).containers[0]!.ports![0]!.containerPort;
  const [a0, a1] = [names[0]![1], names[1]![1]];
  assert.deepEqual(marks.sort(), [`${a0}:${port}`, `${a1}:${port}`, `${a1}:${port}`].sort());
  // The dashboard the Job publishes is in the results volume.
  assert.ok(existsSync(join(results, 'dashboard', 'index.html')), readdirSync(results).join(' '));
});
