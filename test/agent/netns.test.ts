/**
 * Agents across a real network boundary: a runner host and two agent hosts, each a network
 * namespace with its own address on a bridge of the test's own (test/helpers/netns.ts); no
 * traffic leaves them. The broker is convoy's in-memory one, inside the runner's process on the
 * runner host, so its clients' calls cross the network too (a real broker on a host of its own
 * adds nothing these tests check). Every process is convoy's command line, as a user runs it.
 * All hosts share the machine's one real-time clock (namespaces do not separate clocks), so a
 * measured offset is near 0 unless an agent is given a test clock (CONVOY_TEST_CLOCK_OFFSET_MS).
 * A PostgreSQL store runs on the runner host, started by the run; consumers on both agent hosts
 * share it across the network.
 *
 * Needs root (namespaces). Where it cannot run, its tests are skipped with the reason, except
 * where CONVOY_REQUIRE_NETNS=1 (.ci/run sets it), where that is a failure: CI asserts they ran.
 */
// @needs root postgres
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { makeNetwork, netnsUnavailable, type Host, type Network } from '../helpers/netns.ts';
import { AGENT_PORT, convoyOn, output, startAgent } from '../helpers/netns-convoy.ts';

const unavailable = netnsUnavailable();
const skip = unavailable && process.env.CONVOY_REQUIRE_NETNS !== '1' ? unavailable : false;
const T = { skip, timeout: 120_000 };

function scenarioFile(dir: string, seconds: number, consumersOnTwoHosts = false, store = 'sqlite'): string {
  const file = join(dir, `agents-${seconds}s${consumersOnTwoHosts ? '-split' : ''}-${store}.yaml`);
  writeFileSync(file, `name: agents-${seconds}s
seed: 7
broker: { kind: memory, mode: partitioned, partitions: 3 }
workload:
  keys: { count: 20 }
  rate: { kind: fixed, perSecond: 200 }
  durationMs: ${seconds}s
  warmupMs: 500ms
consumers: { processes: 2, handler: { kind: constant, ms: 1 }, strategy: versioned, store: ${store} }
expect:
  reorder: 0
  duplicate: 0
  lost: 0
  wrong-state: ${consumersOnTwoHosts ? 'any' : 0}
`);
  return file;
}

interface Layout {
  net: Network;
  dir: string;
  runner: Host;
  agents: Array<{ host: Host; process: ChildProcess; workDir: string }>;
  close(): Promise<void>;
}

async function layout(agentEnv: Record<string, Record<string, string>> = {}): Promise<Layout> {
  const net = makeNetwork(['runner', 'agent-a', 'agent-b']);
  const dir = mkdtempSync(join(tmpdir(), 'convoy-netns-'));
  const agents: Layout['agents'] = [];
  const started = await Promise.allSettled(['agent-a', 'agent-b'].map((name) => startAgent(net.hosts[name]!, join(dir, name), join(dir, `${name}.log`), agentEnv[name])));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    for (const s of started) if (s.status === 'fulfilled') s.value.kill('SIGKILL');
    net.close();
    throw failed.reason;
  }
  started.forEach((s, i) => {
    const name = ['agent-a', 'agent-b'][i]!;
    agents.push({ host: net.hosts[name]!, process: (s as PromiseFulfilledResult<ChildProcess>).value, workDir: join(dir, name) });
  });
  return {
    net, dir, runner: net.hosts.runner!, agents,
    close: async () => {
      for (const a of agents) {
        if (a.process.exitCode === null && a.process.signalCode === null) {
          a.process.kill('SIGTERM');
          await Promise.race([once(a.process, 'exit'), new Promise((r) => setTimeout(r, 5_000))]);
          a.process.kill('SIGKILL');
        }
      }
      net.close();
    },
  };
}

/**
 * `convoy run` on the runner host: producers on agent-a, consumers on agent-b (and `consumersHere`,
 * here too), or as `agents` says.
 */
interface PlacedRun {
  /** What the test does while the run goes (kill or cut an agent). */
  during?: (run: ChildProcess) => Promise<void>;
  /** A consumer on the runner's host too (`--agent consumers=here`). */
  consumersHere?: boolean;
  store?: 'sqlite' | 'postgres';
  /** The --agent flags; by default producers on agent-a, consumers on agent-b. */
  agents?: string[];
}

async function runPlaced(l: Layout, seconds: number, { during, consumersHere = false, store = 'sqlite', agents }: PlacedRun = {}): Promise<{ code: number | null; out: string; runDir: string }> {
  const results = join(l.dir, 'results');
  const placed = agents ?? [`producers=${l.agents[0]!.host.address}:${AGENT_PORT}`, ...(consumersHere ? ['consumers=here'] : []), `consumers=${l.agents[1]!.host.address}:${AGENT_PORT}`];
  const run = convoyOn(l.runner, ['run', scenarioFile(l.dir, seconds, consumersHere, store), '--results', results, '--quiet', ...placed.flatMap((a) => ['--agent', a])], join(l.dir, 'run.log'));
  await during?.(run);
  const [code] = await once(run, 'exit');
  const runs = readdirSync(results).map((d) => join(results, d));
  return { code, out: output(run), runDir: runs.at(-1)! };
}

const resultOf = (runDir: string) => JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as { verdict: { status: string; reasons?: string[] }; incomplete?: string[] };
const historyLines = (runDir: string) => readFileSync(join(runDir, 'history.jsonl'), 'utf8').split('\n').filter(Boolean);

/** convoy worker processes still alive that an agent of this test started (they run in its work folders). */
function workersAlive(dir: string): number[] {
  const pids: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('harness/roles/main') && readlinkSync(`/proc/${d}/cwd`).startsWith(dir)) pids.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return pids;
}

test('producers on one agent host and consumers on another pass, with every history line back once', T, async () => {
  const l = await layout();
  try {
    const r = await runPlaced(l, 2);
    assert.equal(r.code, 0, r.out);
    assert.equal(resultOf(r.runDir).verdict.status, 'pass');
    const lines = historyLines(r.runDir);
    assert.equal(new Set(lines).size, lines.length, 'no history line twice');
    const marks = lines.map((x) => JSON.parse(x)).filter((e) => e.type === 'mark' && e.name === 'worker-started');
    assert.deepEqual(marks.map((m) => m.detail.agent).sort(), [`${l.agents[1]!.host.address}:${AGENT_PORT}`, `${l.agents[1]!.host.address}:${AGENT_PORT}`, `${l.agents[0]!.host.address}:${AGENT_PORT}`].sort());
  } finally {
    await l.close();
  }
  assert.deepEqual(workersAlive(l.dir), [], 'no worker left running');
});

test('consumers on both agent hosts share the PostgreSQL store on the runner host: the run passes', T, async () => {
  const l = await layout();
  try {
    const [a, b] = l.agents.map((x) => `${x.host.address}:${AGENT_PORT}`);
    const r = await runPlaced(l, 2, { store: 'postgres', agents: [`producers=${a}`, `consumers=${a}`, `consumers=${b}`] });
    assert.equal(r.code, 0, r.out);
    assert.equal(resultOf(r.runDir).verdict.status, 'pass');
    const events = historyLines(r.runDir).map((x) => JSON.parse(x));
    const started = events.filter((e) => e.type === 'mark' && e.name === 'worker-started' && e.detail.role === 'consumer');
    assert.deepEqual(started.map((m) => m.detail.agent).sort(), [a, b].sort(), 'one consumer on each agent host');
    const store = events.find((e) => e.type === 'mark' && e.name === 'store-started');
    assert.equal(store?.detail.kind, 'postgres');
    // Both consumers applied messages (the analysis read the store's copy: the verdict above).
    const applied = new Set(events.filter((e) => e.type === 'process' && e.effect === 'applied').map((e) => e.consumer));
    assert.deepEqual([...applied].sort(), ['c1', 'c2'], 'both consumers applied messages');
  } finally {
    await l.close();
  }
  assert.deepEqual(workersAlive(l.dir), [], 'no worker left running');
});

test('an agent killed mid-run makes the run unknown, with the reason, and leaves nothing running', T, async () => {
  const l = await layout();
  try {
    const r = await runPlaced(l, 8, {
      during: async () => {
        await new Promise((res) => setTimeout(res, 4_000));
        l.agents[1]!.process.kill('SIGKILL'); // the consumers' agent; its workers are its children's groups
      },
    });
    assert.equal(r.code, 3, r.out);
    const result = resultOf(r.runDir);
    assert.equal(result.verdict.status, 'unknown');
    assert.match(JSON.stringify(result), /agent 10\.\d+\.0\.3:7411 lost/);
  } finally {
    await l.close();
  }
  // The killed agent's workers find their stream gone and exit by themselves.
  for (let i = 0; i < 50 && workersAlive(l.dir).length > 0; i++) await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(workersAlive(l.dir), [], 'no worker left running on any host');
});

test('an agent cut off for 3 s and reconnected: the run completes, and no history line comes twice', T, async () => {
  const l = await layout();
  try {
    const r = await runPlaced(l, 6, {
      during: async () => {
        await new Promise((res) => setTimeout(res, 3_000));
        l.agents[1]!.host.cut();
        await new Promise((res) => setTimeout(res, 3_000));
        l.agents[1]!.host.reconnect();
      },
    });
    assert.equal(r.code, 0, r.out);
    assert.equal(resultOf(r.runDir).verdict.status, 'pass');
    const lines = historyLines(r.runDir);
    assert.equal(new Set(lines).size, lines.length, 'no history line twice');
  } finally {
    await l.close();
  }
});

test('an agent whose clock is 50 ms behind: its offset measured to within the uncertainty, its consumer\'s times mapped, the run judged as on one clock', T, async () => {
  // The namespaces share one real-time clock: the offset is the test clock's, given to agent-b.
  const l = await layout({ 'agent-b': { CONVOY_TEST_CLOCK_OFFSET_MS: '-50' } });
  try {
    const r = await runPlaced(l, 2, { consumersHere: true });
    assert.equal(r.code, 0, r.out);
    const result = JSON.parse(readFileSync(join(r.runDir, 'result.json'), 'utf8')) as { verdict: { status: string }; check: { clocks: Array<{ host: string; workers: string[]; offsetUs: { first: number; last: number }; uncertaintyUs: number }> }; latency: { clockUncertaintyUs: { endToEnd: number } } };
    assert.equal(result.verdict.status, 'pass');
    const [a, b] = result.check.clocks;
    assert.deepEqual([a!.host, a!.workers, b!.host, b!.workers], [`${l.agents[0]!.host.address}:${AGENT_PORT}`, ['p-producer-1'], `${l.agents[1]!.host.address}:${AGENT_PORT}`, ['c2']]);
    // Each measurement bounds the offset, give or take where each process placed its monotonic
    // clock on the system clock when it started (harness/clock.ts: µs, up to 1 ms under load).
    for (const off of [b!.offsetUs.first, b!.offsetUs.last]) assert.ok(Math.abs(off + 50_000) <= b!.uncertaintyUs + 1_000, `agent-b ${off} µs ±${b!.uncertaintyUs}`);
    for (const off of [a!.offsetUs.first, a!.offsetUs.last]) assert.ok(Math.abs(off) <= a!.uncertaintyUs + 1_000, `agent-a ${off} µs ±${a!.uncertaintyUs}`);
    assert.ok(result.latency.clockUncertaintyUs.endToEnd > 0);
    const history = historyLines(r.runDir).map((x) => JSON.parse(x) as { type: string; consumer?: string; start?: number });
    assert.ok(history.filter((e) => e.type === 'clock').length >= 4, 'each agent measured at the start and at the end');
  } finally {
    await l.close();
  }
});
