/**
 * A run whose producers and consumers run on two convoy agents (here both on loopback, in this
 * process): the workers start there, speak the worker protocol through the agents, write their
 * histories there, and those come back line for line; the run's verdict and counts are those of
 * the same scenario run here. Bad placements are one line each, before anything starts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scenarioCatalogue } from '../../harness/cli/catalogue.ts';
import { runOnce } from '../../harness/runner/run-and-analyze.ts';
import { loadScenarioFile } from '../../harness/scenario/load.ts';
import { startAgent } from '../../harness/agent/server.ts';
import { AGENT_TOKEN_ENV, agentPlacements, scenarioPlacements } from '../../harness/runner/placement.ts';

const SMOKE = fileURLToPath(new URL('../../brokers/memory/test/scenarios/partitioned-smoke.yaml', import.meta.url));
const TOKEN = 'placement-test-token';

test('producers on one agent and consumers on another (the scenario\'s placement section): the run passes, with every history line back', async () => {
  process.env[AGENT_TOKEN_ENV] = TOKEN;
  const agents = await Promise.all([0, 1].map(() => startAgent({ host: '127.0.0.1', port: 0, token: TOKEN, workDir: mkdtempSync(join(tmpdir(), 'convoy-agent-')), log: () => {} })));
  try {
    const scenario = await loadScenarioFile(SMOKE, { catalogue: await scenarioCatalogue(), target: { runtime: 'local', allowDestructive: false } });
    const resultsDir = mkdtempSync(join(tmpdir(), 'convoy-placed-'));
    const placement = { producers: [`127.0.0.1:${agents[0]!.port}`], consumers: [`127.0.0.1:${agents[1]!.port}`] };
    const { result, runDir } = await runOnce({ ...scenario, placement }, { runtime: 'local', resultsDir, keep: false, allowDestructive: false, repeat: 1, quiet: true });
    assert.equal(result.verdict.status, 'pass', JSON.stringify(result.verdict));
    const history = readFileSync(join(runDir, 'history.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; at: number; name?: string; detail?: { agent?: string; role?: string } });
    const started = history.filter((e) => e.type === 'mark' && e.name === 'worker-started').map((e) => `${e.detail!.role}@${e.detail!.agent}`);
    assert.deepEqual(started.sort(), [`consumer@127.0.0.1:${agents[1]!.port}`, `consumer@127.0.0.1:${agents[1]!.port}`, `producer@127.0.0.1:${agents[0]!.port}`]);
    // Each agent's clock, measured at the start, during and at the end, naming its workers. One
    // machine here, one clock: every offset is within its uncertainty.
    const clocks = history.filter((e) => e.type === 'clock') as unknown as Array<{ host: string; offset: number; uncertainty: number; workers: string[] }>;
    for (const a of agents) assert.ok(clocks.filter((c) => c.host === `127.0.0.1:${a.port}`).length >= 2, 'measured at the start and at the end');
    for (const c of clocks) assert.ok(Math.abs(c.offset) <= c.uncertainty, JSON.stringify(c));
    assert.deepEqual(clocks.filter((c) => c.host === `127.0.0.1:${agents[1]!.port}`).at(-1)!.workers.sort(), ['c1', 'c2']);
    assert.equal((result.check as unknown as { clocks: unknown[] }).clocks.length, 2);
    const sends = history.filter((e) => e.type === 'send').length;
    const processed = history.filter((e) => e.type === 'process').length;
    assert.ok(sends >= 250, `the producer's history came back (${sends} sends)`);
    assert.ok(processed >= sends, `the consumers' histories came back (${processed} handled of ${sends} sent)`);
    // Each agent's share, in the result.
    const shares = (result.harness as unknown as { agents: Array<{ agent: string; workers: string[]; acked: number; applied: number; ackedPerSecond: number }> }).agents;
    assert.deepEqual(shares.map((a) => [a.agent, a.workers]), [[`127.0.0.1:${agents[0]!.port}`, ['p-producer-1']], [`127.0.0.1:${agents[1]!.port}`, ['c1', 'c2']]]);
    assert.ok(shares[0]!.acked >= 250 && shares[0]!.ackedPerSecond > 0 && shares[0]!.applied === 0, JSON.stringify(shares[0]));
    assert.ok(shares[1]!.applied >= shares[0]!.acked && shares[1]!.acked === 0, JSON.stringify(shares[1]));
  } finally {
    delete process.env[AGENT_TOKEN_ENV];
    await Promise.all(agents.map((a) => a.close()));
  }
});

test('an agent address that is no host:port, a typo in the placement section, or consumers on two hosts with a SQLite store, is one clear line', async () => {
  assert.throws(() => agentPlacements(['consumers=nowhere']), /--agent nowhere: expected host:port/);
  // One agent named for each role is one agent (one control connection) with both.
  assert.deepEqual(agentPlacements(['producers=10.0.0.2:7411', 'consumers=10.0.0.3:7411', 'consumers=10.0.0.2:7411']), [
    { address: { host: '10.0.0.2', port: 7411 }, roles: ['producers', 'consumers'] },
    { address: { host: '10.0.0.3', port: 7411 }, roles: ['consumers'] },
  ]);
  // The section as the flags would say it; `--agent` replaces it.
  assert.deepEqual(scenarioPlacements({ producers: ['10.0.0.2:7411'], consumers: ['10.0.0.2:7411', '10.0.0.3:7411'] }), agentPlacements(['producers=10.0.0.2:7411', 'consumers=10.0.0.2:7411', 'consumers=10.0.0.3:7411']));
  const dir = mkdtempSync(join(tmpdir(), 'convoy-placement-'));
  const withPlacement = async (section: string) => {
    const file = join(dir, 'placed.yaml');
    writeFileSync(file, readFileSync(SMOKE, 'utf8').replace(/^expect:/m, `placement: ${section}\nexpect:`));
    return loadScenarioFile(file, { catalogue: await scenarioCatalogue(), target: { runtime: 'local', allowDestructive: false } });
  };
  const problems = (e: unknown) => ((e as { errors?: string[] }).errors ?? []).join('\n');
  await assert.rejects(withPlacement('{ consumer: [10.0.0.3:7411] }'), (e) => /^placement\.consumer: unknown property \(did you mean consumers\?\)$/.test(problems(e)));
  await assert.rejects(withPlacement('{ consumers: [10.0.0.3] }'), (e) => /^placement\.consumers\[0\]: expected a string matching .*, got "10\.0\.0\.3"$/.test(problems(e)));
  process.env[AGENT_TOKEN_ENV] = TOKEN;
  try {
    const scenario = await loadScenarioFile(SMOKE, { catalogue: await scenarioCatalogue(), target: { runtime: 'local', allowDestructive: false } });
    const resultsDir = mkdtempSync(join(tmpdir(), 'convoy-placed-'));
    const { result } = await runOnce(scenario, { runtime: 'local', resultsDir, keep: false, allowDestructive: false, repeat: 1, quiet: true, agents: agentPlacements(['127.0.0.1:1', '127.0.0.1:2']) });
    assert.equal(result.verdict.status, 'unknown');
    assert.match(JSON.stringify(result), /consumers on 2 hosts \(127\.0\.0\.1:1, 127\.0\.0\.1:2\) would each keep their own SQLite entity store; place them on one host, set consumers\.store: postgres, or expect wrong-state: any/);
    assert.deepEqual(agentPlacements(['consumers=here', 'here']), [{ address: 'here', roles: ['consumers'] }, { address: 'here', roles: ['producers', 'consumers'] }]);
  } finally {
    delete process.env[AGENT_TOKEN_ENV];
  }
});
