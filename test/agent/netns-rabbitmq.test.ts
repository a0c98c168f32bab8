/**
 * A real broker on a host of its own: RabbitMQ on the broker host of a namespace layout
 * (test/helpers/netns.ts, test/helpers/rabbitmq-host.ts), the runner on another host, producers on
 * agent-a and consumers on agent-b. Every client reaches the broker across the network at the
 * broker host's address, as a team's clients reach its broker on another machine: the run uses
 * `--runtime external` with a connection file. Needs root (namespaces) and RabbitMQ's package;
 * skipped with the reason where namespaces cannot be made, except under CONVOY_REQUIRE_NETNS=1.
 */
// @needs rabbitmq root
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { makeNetwork, netnsUnavailable } from '../helpers/netns.ts';
import { AGENT_PORT, convoyOn, output, startAgent } from '../helpers/netns-convoy.ts';
import { startRabbitOnHost, type BrokerHost } from '../helpers/rabbitmq-host.ts';

const unavailable = netnsUnavailable();
const skip = unavailable && process.env.CONVOY_REQUIRE_NETNS !== '1' ? unavailable : false;

const SCENARIO = `name: broker-host
seed: 7
broker: { kind: rabbitmq, topology: single-active }
workload:
  keys: { count: 20 }
  rate: { kind: fixed, perSecond: 200 }
  durationMs: 2s
  warmupMs: 500ms
consumers: { processes: 2, handler: { kind: constant, ms: 1 }, strategy: versioned }
expect:
  reorder: 0
  duplicate: 0
  lost: 0
  wrong-state: 0
`;

test('RabbitMQ on a broker host, producers on one agent host, consumers on another: a pass, every history line back once', { skip, timeout: 180_000 }, async () => {
  const net = makeNetwork(['runner', 'agent-a', 'agent-b', 'broker']);
  const dir = mkdtempSync(join(tmpdir(), 'convoy-netns-rmq-'));
  const agents: ChildProcess[] = [];
  let broker: BrokerHost | undefined;
  try {
    broker = await startRabbitOnHost(net.hosts.broker!, dir);
    for (const name of ['agent-a', 'agent-b']) agents.push(await startAgent(net.hosts[name]!, join(dir, name), join(dir, `${name}.log`)));
    const [a, b] = ['agent-a', 'agent-b'].map((n) => `${net.hosts[n]!.address}:${AGENT_PORT}`);
    const scenario = join(dir, 'broker-host-scenario.yaml');
    writeFileSync(scenario, SCENARIO);
    const results = join(dir, 'results');
    const run = convoyOn(net.hosts.runner!, ['run', scenario, '--results', results, '--quiet', '--runtime', 'external', '--connection', broker.connectionFile,
      '--agent', `producers=${a}`, '--agent', `consumers=${b}`], join(dir, 'run.log'));
    const [code] = await once(run, 'exit');
    assert.equal(code, 0, output(run));
    const runDir = join(results, readdirSync(results).at(-1)!);
    const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as { verdict: { status: string }; versions: { cluster: { endpoint: string } } };
    assert.equal(result.verdict.status, 'pass');
    // The run's clients talked to the broker host, not to a broker on the runner's loopback.
    assert.equal(result.versions.cluster.endpoint, `${net.hosts.broker!.address}:5672`);
    const lines = readFileSync(join(runDir, 'history.jsonl'), 'utf8').split('\n').filter(Boolean);
    assert.equal(new Set(lines).size, lines.length, 'no history line twice');
    const started = lines.map((x) => JSON.parse(x)).filter((e) => e.type === 'mark' && e.name === 'worker-started');
    assert.deepEqual(started.map((m) => m.detail.agent).sort(), [a, b, b].sort());
    const applied = lines.filter((x) => x.includes('"type":"process"')).length;
    assert.ok(applied >= 400, `${applied} messages processed`);
  } finally {
    for (const agent of agents) {
      agent.kill('SIGTERM');
      if (agent.exitCode === null) await Promise.race([once(agent, 'exit'), new Promise((r) => setTimeout(r, 5_000))]);
      agent.kill('SIGKILL');
    }
    broker?.stop();
    net.close();
  }
});
