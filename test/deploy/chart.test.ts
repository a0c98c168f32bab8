// @needs go
/**
 * The Helm chart and the Dockerfile, checked offline by real tools built into convoy's cache
 * (bin/chart-tools.sh): helm lint and helm template; kubectl-validate against the Kubernetes 1.30
 * API schemas it embeds; hadolint. Then the rendered manifests against convoy itself: the agent's
 * and the runner's flags are ones their commands take, the token variable is the one they read,
 * the ports and the agents' addresses meet, every path on a command line lies in a volume
 * mounted there, the image's tag is convoy's version, and the Dockerfile's paths, user and
 * set-up are the chart's and the README's. No cluster or container engine runs here.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { parse } from 'yaml';
import { chartTools, type ChartTools } from '../../harness/setup/chart-tools.ts';
import { convoyVersion } from '../../harness/convoy-version.ts';
import { AGENT_CA_ENV, AGENT_TOKEN_ENV } from '../../harness/runner/placement.ts';
import { register as registerAgent } from '../../harness/cli/commands/agent.ts';
import { register as registerRun } from '../../harness/cli/commands/run.ts';
import { register as registerDashboard } from '../../harness/cli/commands/dashboard.ts';
import { BASE_VALUES, CHART, commandLine, helmWith, NAMESPACE, one, podOf, render, RELEASE, type Container, type Manifest } from '../helpers/chart.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
let tools: ChartTools;
before(() => {
  tools = chartTools();
}, { timeout: 1_300_000 });

/** A release against an external Kafka: connection and password Secrets, destructive faults. */
const EXTERNAL = {
  ...BASE_VALUES,
  agents: { count: 3, antiAffinity: 'preferred', tls: { secretName: 'convoy-agents-tls' } },
  runner: {
    scenario: { configMap: 'orders-scenario', key: 'orders.yaml' },
    connection: { secretName: 'staging-kafka', key: 'connection.yaml' },
    secrets: ['kafka-password'],
    allowDestructive: true,
    dashboard: false,
  },
};

function validate(text: string): { status: number | null; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-kv-'));
  writeFileSync(join(dir, 'manifests.yaml'), text);
  const r = spawnSync(tools['kubectl-validate'], [join(dir, 'manifests.yaml'), '--version', '1.30'], { encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

test('helm lint passes, and a release without a token or a scenario is refused with one line', () => {
  for (const values of [BASE_VALUES, EXTERNAL]) {
    const r = helmWith(tools.helm, ['lint', '--strict', CHART], values);
    assert.equal(r.status, 0, r.out);
  }
  const noToken = helmWith(tools.helm, ['template', RELEASE, CHART], { runner: BASE_VALUES.runner });
  assert.notEqual(noToken.status, 0);
  assert.match(noToken.out, /token: set token\.existingSecret \(a Secret you made\) or token\.value/);
  const noScenario = helmWith(tools.helm, ['template', RELEASE, CHART], { token: BASE_VALUES.token });
  assert.match(noScenario.out, /runner\.scenario: set runner\.scenario\.configMap/);
  // values.schema.json: a value of the wrong shape names its path.
  const noAgents = helmWith(tools.helm, ['template', RELEASE, CHART], { ...BASE_VALUES, agents: { count: 0 } });
  assert.match(noAgents.out, /\/agents\/count': minimum: got 0, want 1/);
  const spread = helmWith(tools.helm, ['template', RELEASE, CHART], { ...BASE_VALUES, agents: { antiAffinity: 'sometimes' } });
  assert.match(spread.out, /\/agents\/antiAffinity': value must be one of 'required', 'preferred', 'none'/);
});

test('the rendered manifests are valid Kubernetes 1.30 objects (kubectl-validate, offline)', () => {
  for (const values of [BASE_VALUES, EXTERNAL, { ...BASE_VALUES, agents: { count: 1, antiAffinity: 'none' }, networkPolicy: { enabled: false } }]) {
    const { text, manifests } = render(tools.helm, values);
    assert.ok(manifests.length >= 5, text);
    const r = validate(text);
    assert.equal(r.status, 0, r.out);
  }
  // It does check: a replica count that is no number is refused.
  const bad = validate(render(tools.helm, BASE_VALUES).text.replace(/replicas: 2/, 'replicas: two'));
  assert.notEqual(bad.status, 0, bad.out);
  assert.match(bad.out, /replicas/);
});

/** The long flags convoy's command takes, from its own definition. */
function flagsOf(register: (p: Command) => void, name: string): Set<string> {
  const program = new Command();
  register(program);
  return new Set(program.commands.find((c) => c.name() === name)!.options.map((o) => o.long!));
}
const flagsIn = (args: string[]) => args.filter((a) => a.startsWith('--'));

/** The value that follows a flag on a command line. */
const after = (line: string[], flag: string): string[] => line.flatMap((a, i) => (line[i - 1] === flag ? [a] : []));

/** Whether a path lies in one of the container's volume mounts. */
const mounted = (c: Container, path: string) => (c.volumeMounts ?? []).some((m) => path === m.mountPath || path.startsWith(`${m.mountPath}/`));

test('the manifests and convoy agree: flags, token variable, ports, addresses, image and volume paths', () => {
  const { manifests } = render(tools.helm, EXTERNAL);
  const agentSet = one(manifests, 'StatefulSet');
  const agent = podOf(agentSet).containers[0]!;
  const jobPod = podOf(one(manifests, 'Job'));
  const runner = jobPod.containers[0]!;
  const wait = jobPod.initContainers![0]!;
  const agentLine = commandLine(agent);
  const runLine = commandLine(runner);

  // Commands and their flags: the image's convoy, with flags its commands take.
  assert.deepEqual(agent.command, ['/opt/convoy/convoy']);
  assert.equal(agent.args![0], 'agent');
  for (const f of flagsIn(agent.args!)) assert.ok(flagsOf(registerAgent, 'agent').has(f), `convoy agent has no ${f}`);
  assert.deepEqual(runner.command, ['/opt/convoy/convoy'], 'without the dashboard, the run is the whole command');
  assert.equal(runner.args![0], 'run');
  for (const f of flagsIn(runner.args!)) assert.ok(flagsOf(registerRun, 'run').has(f), `convoy run has no ${f}`);
  assert.ok(existsSync(join(ROOT, wait.command![1]!.replace('/opt/convoy/', ''))), wait.command!.join(' '));

  // The token: the variable convoy reads, from one Secret, in both.
  for (const c of [agent, runner]) {
    const env = c.env!.find((e) => e.name === AGENT_TOKEN_ENV);
    assert.deepEqual(env?.valueFrom?.secretKeyRef, { name: `${RELEASE}-convoy-token`, key: 'token' }, c.name);
  }

  // Ports and addresses: the agent listens where its container port, its Service and the
  // runner's --agent addresses say; the last agent takes the consumers, the others producers.
  const port = Number(after(agentLine, '--listen')[0]!.split(':')[1]);
  assert.equal(agent.ports![0]!.containerPort, port);
  const service = manifests.find((m) => m.kind === 'Service')! as Manifest & { spec: { clusterIP: string; ports: Array<{ port: number }> } };
  assert.equal(service.spec.clusterIP, 'None');
  assert.equal(service.spec.ports[0]!.port, port);
  assert.equal((agentSet as unknown as { spec: { serviceName: string } }).spec.serviceName, service.metadata.name);
  const address = (i: number) => `${agentSet.metadata.name}-${i}.${service.metadata.name}.${NAMESPACE}.svc:${port}`;
  assert.deepEqual(after(runLine, '--agent'), [`producers=${address(0)}`, `producers=${address(1)}`, `consumers=${address(2)}`]);
  assert.deepEqual(wait.args, [0, 1, 2].map(address));

  // Image: one for all, tagged with convoy's version (runner and agents check it at the handshake).
  for (const c of [agent, runner, wait]) assert.equal(c.image, `convoy:${convoyVersion()}`);
  assert.equal((parse(readFileSync(join(CHART, 'Chart.yaml'), 'utf8')) as { appVersion: string }).appVersion, convoyVersion());

  // Paths on the command lines lie in the volumes mounted there, from the right sources.
  for (const p of after(agentLine, '--work-dir')) assert.ok(mounted(agent, p), p);
  const scenario = runner.args![1]!;
  const connection = after(runLine, '--connection')[0]!;
  for (const p of [scenario, ...after(runLine, '--results'), connection]) assert.ok(mounted(runner, p), p);
  const volume = (c: Container, path: string) => {
    const m = c.volumeMounts!.find((v) => path.startsWith(`${v.mountPath}/`))!;
    return jobPod.volumes!.find((v) => v.name === m.name)!;
  };
  assert.deepEqual(volume(runner, scenario).configMap, { name: 'orders-scenario' });
  assert.ok(scenario.endsWith('/orders.yaml'));
  assert.deepEqual(volume(runner, connection).secret, { secretName: 'staging-kafka' });
  assert.ok(runner.volumeMounts!.some((m) => m.mountPath === '/etc/convoy/secrets/kafka-password'));
  assert.deepEqual(after(runLine, '--runtime'), ['external']);
  assert.ok(runLine.includes('--allow-destructive'));

  // TLS: the agents' certificate and key, and the runner's CA (the variable convoy reads), from
  // one Secret, each mounted where its path points.
  const agentVolume = (path: string) => {
    const m = agent.volumeMounts!.find((v) => path.startsWith(`${v.mountPath}/`))!;
    return podOf(agentSet).volumes!.find((v) => v.name === m.name)!;
  };
  const [cert, key] = [after(agentLine, '--tls-cert')[0]!, after(agentLine, '--tls-key')[0]!];
  for (const p of [cert, key]) {
    assert.ok(mounted(agent, p), p);
    assert.equal((agentVolume(p).secret as { secretName: string }).secretName, 'convoy-agents-tls');
  }
  const ca = runner.env!.find((e) => e.name === AGENT_CA_ENV)?.value;
  assert.ok(ca && mounted(runner, ca), `${AGENT_CA_ENV}=${ca}`);
  assert.deepEqual(volume(runner, ca).secret, { secretName: 'convoy-agents-tls', items: [{ key: 'ca.crt', path: 'ca.crt' }] });
  // Without the Secret, plain TCP: no certificate flags, no CA.
  const plain = render(tools.helm, BASE_VALUES).manifests;
  assert.ok(!commandLine(podOf(one(plain, 'StatefulSet')).containers[0]!).includes('--tls-cert'));
  assert.ok(!podOf(one(plain, 'Job')).containers[0]!.env!.some((e) => e.name === AGENT_CA_ENV));
});

test('with the dashboard, the runner runs convoy run and then convoy dashboard on the results, and exits with the run\'s code', () => {
  const runner = podOf(one(render(tools.helm, BASE_VALUES).manifests, 'Job')).containers[0]!;
  const [sh, c, script, name] = runner.command!;
  assert.deepEqual([sh, c, name], ['sh', '-c', 'convoy-run']);
  assert.match(script!, /^\/opt\/convoy\/convoy "\$@"; code=\$\?; \/opt\/convoy\/convoy dashboard \/var\/lib\/convoy\/results \|\| true; exit \$code$/);
  const program = new Command();
  registerDashboard(program);
  assert.ok(program.commands.some((cmd) => cmd.name() === 'dashboard'));
  assert.deepEqual(runner.args!.slice(0, 4), ['run', '/etc/convoy/scenario/scenario.yaml', '--results', '/var/lib/convoy/results']);
  assert.ok(!runner.args!.includes('--runtime'), 'no connection: the local runtime');
});

test('the Dockerfile passes hadolint, and agrees with the chart and the README', () => {
  const file = join(ROOT, 'Dockerfile');
  const r = spawnSync(tools.hadolint, ['--no-color', file], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  // It does lint: a planted mistake is found.
  const bad = spawnSync(tools.hadolint, ['--no-color', '-'], { input: `${readFileSync(file, 'utf8')}\nRUN cd /tmp && ls\n`, encoding: 'utf8', timeout: 60_000 });
  assert.notEqual(bad.status, 0);
  assert.match(bad.stdout, /DL3003/);

  const dockerfile = readFileSync(file, 'utf8');
  const { manifests } = render(tools.helm, BASE_VALUES);
  const pod = podOf(one(manifests, 'StatefulSet'));
  // The chart's command is the image's entrypoint, in the image's folder, run as its user.
  assert.match(dockerfile, /^ENTRYPOINT \["\/opt\/convoy\/convoy"\]$/m);
  assert.equal([...dockerfile.matchAll(/^WORKDIR (\S+)$/gm)].at(-1)![1], '/opt/convoy');
  assert.equal(/^USER (\d+):(\d+)$/m.exec(dockerfile)!.slice(1).map(Number).join(':'), `${pod.securityContext!.runAsUser}:${pod.securityContext!.runAsGroup}`);
  // The image installs with the README's set-up command, so the two cannot drift.
  const readmeSetup = /^(\.\/convoy setup)\s/m.exec(readFileSync(join(ROOT, 'README.md'), 'utf8'))![1]!;
  assert.match(dockerfile, new RegExp(`^RUN ${readmeSetup.replace('.', '\\.')} `, 'm'));
});
