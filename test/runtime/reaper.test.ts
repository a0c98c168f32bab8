/**
 * Nothing outlives the harness. The harness is killed with SIGKILL in the middle
 * of faults; every process of that run (Kafka, Toxiproxy, workers, a frozen one included, and
 * the reaper itself) is gone within 10 s, while a broker from `convoy brokers up` keeps
 * serving. A `brokers up` killed half way leaves nothing. `convoy clean` finds what a dead
 * harness left when its reaper died too, and leaves a live harness's processes alone.
 *
 * "A process of the run" is found without convoy's help: every process carrying an
 * environment variable the test gave the harness (all children inherit it).
 */
// @needs own rabbitmq kafka
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { CONVOY, ROOT } from '../runner/helpers.ts';
import { allProcesses, cmdlineOf, environOf } from '../../harness/runtime/proc.ts';
import { amqpHealthy } from '../../brokers/rabbitmq/local.ts';
import { sleep } from '../../harness/clock.ts';

// A cache of our own (downloads shared by symlink): `brokers up` records, reaper ledgers and
// `convoy clean` then never reach other people's brokers on this machine.
const realCache = process.env.CONVOY_CACHE || join(homedir(), '.cache', 'convoy');
const cache = mkdtempSync(join(tmpdir(), 'convoy-reaper-cache-'));
for (const d of ['toxiproxy', 'kafka', 'elasticmq', 'pstest']) if (existsSync(join(realCache, d))) symlinkSync(join(realCache, d), join(cache, d));
const TAG = 'CONVOY_TEST_REAPER';
/** The `brokers up` RabbitMQ: started by one test, stopped by `convoy clean` in a later one. */
const upTag = randomUUID();

after(async () => {
  await cli(['clean'], randomUUID()).done;
  rmSync(cache, { recursive: true, force: true });
});

function cli(args: string[], tag: string, onStderr?: (text: string, child: ChildProcess) => void) {
  const child = spawn(process.execPath, [CONVOY, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    // No CONVOY_INSTANCES: the runs' brokers are their own, recorded in the private cache, never the test suite's.
    env: { ...process.env, CI: 'true', CONVOY_CACHE: cache, CONVOY_INSTANCES: '', [TAG]: tag },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => {
    stderr += d;
    onStderr?.(stderr, child);
  });
  const t = setTimeout(() => child.kill('SIGKILL'), 240_000);
  const done = new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => {
      clearTimeout(t);
      resolve({ code, signal, stdout, stderr });
    }),
  );
  return { child, done };
}

/**
 * Live processes carrying the tag: pid, state and command line. Erlang's port mapper (epmd)
 * is left out: the first Erlang node on a host starts it in a session of its own, every node
 * shares it, and convoy never stops it (brokers/rabbitmq/local.ts).
 */
function tagged(tag: string): string[] {
  return allProcesses()
    .filter((p) => p.pid !== process.pid && environOf(p.pid).get(TAG) === tag && !/(^|\/)epmd /.test(cmdlineOf(p.pid) + ' '))
    .map((p) => `${p.pid} ${p.state} ${cmdlineOf(p.pid)}`);
}

/** For messages: command lines cut short (a JVM's class path is long). */
const short = (lines: string[]) => lines.map((l) => (l.length > 160 ? `${l.slice(0, 100)} ... ${l.slice(-50)}` : l)).join('\n');

/** Polls until no tagged process is left; resolves with how long that took (or what is left). */
async function goneWithin(tag: string, ms: number): Promise<{ ms: number; left: string[] }> {
  const t0 = Date.now();
  let left = tagged(tag);
  while (left.length > 0 && Date.now() - t0 < ms) {
    await sleep(200);
    left = tagged(tag);
  }
  return { ms: Date.now() - t0, left };
}

const KAFKA_WITH_FAULTS = `
name: killed-mid-fault
seed: 17
broker: { kind: kafka, client: kafkajs, topic: { partitions: 3 } }
workload:
  keys: { count: 20 }
  rate: { kind: fixed, perSecond: 100 }
  durationMs: 40s
  warmupMs: 0s
consumers: { processes: 2, handler: { kind: constant, ms: 1 } }
faults:
  - { name: slow-link, kind: network, toxic: latency, attributes: { latency: 100 }, atMs: 1s, durationMs: 30s }
  - { name: freeze-c1, kind: freeze, consumer: c1, atMs: 1s, durationMs: 30s }
run: { maxDurationMs: 120s }
`;

const RABBIT_WITH_FAULT = `
name: rabbit-killed-mid-fault
broker: { kind: rabbitmq, topology: competing }
workload: { keys: { count: 10 }, rate: { kind: fixed, perSecond: 100 }, durationMs: 40s, warmupMs: 0s }
consumers: { processes: 2, handler: { kind: constant, ms: 1 } }
faults:
  - { name: stall-c2, kind: stall, consumer: c2, atMs: 1s, durationMs: 30s }
run: { maxDurationMs: 120s }
`;

/** Runs a scenario and kills the harness with SIGKILL once `faults` faults have started. */
async function killMidFault(scenario: string, faults: number, tag: string): Promise<string[]> {
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-reaper-scenario-')), 'scenario.yaml');
  writeFileSync(file, scenario);
  let before: string[] = [];
  let killed = false;
  const run = cli(['run', file, '--results', mkdtempSync(join(tmpdir(), 'convoy-reaper-results-'))], tag, (text, child) => {
    if (!killed && (text.match(/fault \S+ \(\w+\) started/g) ?? []).length >= faults) {
      killed = true;
      before = tagged(tag);
      child.kill('SIGKILL');
    }
  });
  const r = await run.done;
  assert.ok(killed, `the faults never started:\n${r.stderr}`);
  assert.equal(r.signal, 'SIGKILL');
  return before;
}

test('kill -9 of a RabbitMQ run mid-fault: its node (the Erlang VM too), Toxiproxy and workers are gone within 10 s', { timeout: 240_000 }, async () => {
  const tag = randomUUID();
  const before = await killMidFault(RABBIT_WITH_FAULT, 1, tag);
  assert.ok(before.some((l) => /beam\.smp/.test(l)), short(before));
  assert.ok(before.filter((l) => /roles\/main\.[jt]s/.test(l)).length === 3, short(before));
  const { ms, left } = await goneWithin(tag, 10_000);
  assert.deepEqual(short(left), '', `still running ${ms} ms after the kill`);
  console.log(`# after kill -9 of a RabbitMQ run: ${before.length} processes, all gone ${ms} ms later:\n${short(before)}`);
});

test('kill -9 of convoy run mid-fault: no process of the run after 10 s; a `brokers up` broker still serves', { timeout: 300_000 }, async () => {
  const up = await cli(['brokers', 'up', 'rabbitmq'], upTag).done;
  assert.equal(up.code, 0, up.stderr);
  const url = /"url":"(amqp:[^"]+)"/.exec(up.stdout)?.[1];
  assert.ok(url, up.stdout);
  assert.ok(tagged(upTag).length >= 2, 'the rabbitmq node and its Toxiproxy run after `brokers up` exited');

  const runTag = randomUUID();
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-reaper-scenario-')), 'scenario.yaml');
  writeFileSync(file, KAFKA_WITH_FAULTS);
  let before: string[] = [];
  let killedAt = 0;
  const run = cli(['run', file, '--results', mkdtempSync(join(tmpdir(), 'convoy-reaper-results-'))], runTag, (text, child) => {
    if (killedAt === 0 && (text.match(/fault \S+ \(\w+\) started/g) ?? []).length >= 2) {
      killedAt = Date.now();
      before = tagged(runTag);
      child.kill('SIGKILL');
    }
  });
  const r = await run.done;
  assert.ok(killedAt > 0, `the faults never started:\n${r.stderr}`);
  assert.equal(r.signal, 'SIGKILL');
  // Kafka, its Toxiproxy, one producer, two consumers (one frozen) and the reaper.
  assert.ok(before.some((l) => /kafka\.Kafka/.test(l)), short(before));
  assert.ok(before.some((l) => /toxiproxy/.test(l)), short(before));
  assert.ok(before.filter((l) => /roles\/main\.[jt]s/.test(l)).length === 3, short(before));
  assert.ok(before.some((l) => / T /.test(l)), `c1 was frozen:\n${short(before)}`);

  const { ms, left } = await goneWithin(runTag, 10_000);
  assert.deepEqual(short(left), '', `still running ${ms} ms after the kill`);
  console.log(`# after kill -9 of the harness: ${before.length} processes of the run, all gone ${ms} ms later:\n${short(before)}`);

  assert.equal(await amqpHealthy(url).catch(() => false), true, 'the `brokers up` RabbitMQ no longer serves');
  assert.ok(tagged(upTag).length >= 2, 'the `brokers up` processes were stopped');
});

test('`brokers up` killed half way: what it had started is stopped, nothing is recorded', { timeout: 180_000 }, async () => {
  const tag = randomUUID();
  let killed = false;
  const up = cli(['brokers', 'up', 'kafka'], tag);
  // Kill it once the broker JVM runs, before it is healthy and recorded.
  const deadline = Date.now() + 60_000;
  while (!killed && Date.now() < deadline) {
    await sleep(100);
    if (tagged(tag).some((l) => /kafka\.Kafka/.test(l))) {
      up.child.kill('SIGKILL');
      killed = true;
    }
  }
  if (!killed) up.child.kill('SIGKILL');
  const r = await up.done;
  assert.ok(killed, `no Kafka JVM seen within 60 s:\n${r.stderr}`);
  assert.equal(r.signal, 'SIGKILL', r.stdout);
  assert.doesNotMatch(r.stdout, /kafka: up/, 'it finished before the kill; the test proves nothing');
  const { ms, left } = await goneWithin(tag, 10_000);
  assert.deepEqual(short(left), '', `still running ${ms} ms after the kill`);
  console.log(`# after kill -9 of \`brokers up\` half way: all its processes gone ${ms} ms later`);
  const status = await cli(['brokers', 'status'], randomUUID()).done;
  assert.doesNotMatch(status.stdout, /kafka.*running/);
});

/** A harness that starts one process through LocalProcess and prints both pids. */
const STARTER = `
import { LocalProcess } from ${JSON.stringify(join(ROOT, 'harness/runtime/process.ts'))};
import { reaperProcess } from ${JSON.stringify(join(ROOT, 'harness/runtime/reaper.ts'))};
const p = LocalProcess.start({ name: 'a sleeper', command: 'sleep', args: ['300'], logFile: ${JSON.stringify(join(tmpdir(), 'convoy-reaper-sleep.log'))} });
console.log(JSON.stringify({ sleeper: p.pid, reaper: reaperProcess() }));
setInterval(() => {}, 1000);
`;

function starter(tag: string) {
  const file = join(mkdtempSync(join(tmpdir(), 'convoy-reaper-starter-')), 'starter.mts');
  writeFileSync(file, STARTER);
  const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, CONVOY_CACHE: cache, CONVOY_INSTANCES: '', [TAG]: tag } });
  const pids = new Promise<{ sleeper: number; reaper: number }>((resolve, reject) => {
    child.stdout.once('data', (d) => resolve(JSON.parse(String(d))));
    child.once('exit', (code) => reject(new Error(`the starter exited (${code})`)));
  });
  return { child, pids };
}

/**
 * Waits until the reaper's ledger names this pid: the reaper records it a moment after the
 * starter prints it (CI once ran `clean` before that, on a loaded machine).
 */
async function recorded(pid: number, ms = 20_000): Promise<void> {
  const dir = join(cache, 'reaper');
  const t0 = Date.now();
  for (;;) {
    const ledgers = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
    if (ledgers.some((f) => readFileSync(join(dir, f), 'utf8').includes(`"pid":${pid},`))) return;
    if (Date.now() - t0 > ms) throw new Error(`no reaper ledger named pid ${pid} within ${ms} ms`);
    await sleep(100);
  }
}

test('convoy clean stops what a dead harness left when its reaper died too, and leaves a live harness alone', { timeout: 60_000 }, async () => {
  const tag = randomUUID();
  const s = starter(tag);
  const { sleeper, reaper } = await s.pids;
  await recorded(sleeper);
  const upBefore = tagged(upTag);
  const live = await cli(['clean'], randomUUID()).done;
  assert.match(live.stdout, new RegExp(`left alone: convoy pid ${s.child.pid} is running`));
  // The `brokers up` broker of the first tests is stopped, as `brokers down` would.
  if (upBefore.length > 0) {
    assert.match(live.stdout, /^stopped rabbitmq-3\.\d+-1node \(convoy brokers up\): pid \d+/m);
    assert.deepEqual(tagged(upTag), []);
  }
  assert.ok(tagged(tag).some((l) => l.startsWith(`${sleeper} `)), 'clean stopped a live harness\'s process');

  process.kill(reaper, 'SIGKILL');
  s.child.kill('SIGKILL');
  await sleep(1_500);
  assert.ok(tagged(tag).some((l) => l.startsWith(`${sleeper} `)), 'the sleeper should be left over (reaper killed first)');
  const c = await cli(['clean'], randomUUID()).done;
  assert.equal(c.code, 0, c.stderr);
  assert.match(c.stdout, new RegExp(`stopped a sleeper \\(left by convoy pid ${s.child.pid}\\): pid ${sleeper}`));
  assert.deepEqual(tagged(tag), []);
  const again = await cli(['brokers', 'down', '--all'], randomUUID()).done;
  assert.match(again.stdout, /nothing convoy started is running/);
});

test('the reaper stops what its harness started when the harness is killed', { timeout: 60_000 }, async () => {
  const tag = randomUUID();
  const s = starter(tag);
  const { sleeper, reaper } = await s.pids;
  assert.ok(tagged(tag).some((l) => l.startsWith(`${reaper} `) && /reaper-main\.[jt]s/.test(l)));
  s.child.kill('SIGKILL');
  const { ms, left } = await goneWithin(tag, 10_000);
  assert.deepEqual(left, [], `still running ${ms} ms after the kill (sleeper ${sleeper})`);
});
