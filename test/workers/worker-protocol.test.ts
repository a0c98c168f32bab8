/**
 * The worker protocol (docs/worker-protocol.md): every message, either way, passes through the
 * framing unchanged and is one the published schema takes; the handshake refuses a worker of
 * another version with one line; a malformed line ends the worker with the reason, and a run
 * whose worker wrote one is unknown; a message to a worker that just died does not end the runner.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { duplexPair, type Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { LineChannel } from '../../harness/line-protocol/channel.ts';
import { FROM_WORKER_TYPES, TO_WORKER_TYPES, WORKER_PROTOCOL_VERSION } from '../../harness/workers/message-names.ts';
import { WorkerChannel } from '../../harness/workers/worker-channel.ts';
import { convoyVersion } from '../../harness/convoy-version.ts';
import { emptyStats } from '../../harness/workers/protocol.ts';
import { runHere } from '../../brokers/memory/test/run-here.ts';

const schema = JSON.parse(readFileSync(new URL('../../results/schema/worker-protocol.v1.json', import.meta.url), 'utf8'));
const validate = new Ajv2020({ strict: false }).compile(schema);
const WORKER_MAIN = fileURLToPath(new URL('../../harness/roles/main.ts', import.meta.url));
const SMOKE = fileURLToPath(new URL('../../brokers/memory/test/scenarios/partitioned-smoke.yaml', import.meta.url));

const stats = { ...emptyStats(), sent: 10, acked: 9, phases: { deliveries: 3, handlerMs: 1.5, storeMs: 0.2, historyMs: 0.1, settleMs: 0.1, firstUs: 10, lastUs: 900 } };
const lines: Record<string, Record<string, unknown>> = {
  hello: { type: 'hello', protocol: 1, convoy: '0.1.0', pid: 4242 },
  ready: { type: 'ready', detail: { url: 'http://127.0.0.1:4100' } },
  stats: { type: 'stats', stats },
  log: { type: 'log', line: 'joined the group' },
  fatal: { type: 'fatal', message: 'cannot reach the broker', detail: ['a', 'b'], exitCode: 3 },
  stopped: { type: 'stopped', stats: { ...stats, finished: true } },
  idle: { type: 'idle' },
  'broker-open': { type: 'broker-open', link: 1 },
  'broker-call': { type: 'broker-call', link: 1, call: 7, method: 'send', args: { prefix: 'convoy-r', key: 'k1', payload: 'Y3YB' } },
  'broker-close': { type: 'broker-close', link: 1 },
  welcome: { type: 'welcome', protocol: 1, convoy: '0.1.0' },
  refused: { type: 'refused', reason: 'worker (pid 4242) speaks worker protocol 2 of convoy 0.2.0; this runner speaks worker protocol 1 of convoy 0.1.0' },
  init: {
    type: 'init',
    reusable: true,
    init: {
      role: 'consumer', id: 'c1', brokerKind: 'memory', endpoint: { instance: 'memory-1' }, settings: { kind: 'memory' }, names: { runId: 'r', prefix: 'convoy-r' },
      scenario: { seed: 1 }, historyFile: '/tmp/r/c1.jsonl', storeFile: '/tmp/r/store.sqlite',
    },
  },
  start: { type: 'start', startUs: 1234.5 },
  stop: { type: 'stop' },
  fault: { type: 'fault', kind: 'stall', phase: 'start', args: { durationMs: 500 } },
  'broker-reply': { type: 'broker-reply', call: 7, ok: true, value: { lane: 'p0', offset: 3 } },
  'broker-push': { type: 'broker-push', link: 1, msg: { type: 'delivery', id: 1, lane: 'p0', offset: 3, payload: 'Y3YB', deliveryCount: 1 } },
};

/** Lines written on one end, read as messages on the other. */
function pair(): { left: LineChannel<Record<string, unknown>, object>; right: LineChannel<Record<string, unknown>, object>; read: Record<string, unknown>[]; problems: string[] } {
  const [a, b] = duplexPair();
  const read: Record<string, unknown>[] = [];
  const problems: string[] = [];
  const options = { check: () => undefined, onMessage: (m: Record<string, unknown>) => read.push(m), onMalformed: (p: string) => problems.push(p), onClose: () => {} };
  return { left: new LineChannel(a, options), right: new LineChannel(b, options), read, problems };
}

const tick = () => new Promise((r) => setTimeout(r, 20));

test('every message, either way, crosses the stream unchanged and is a line the published schema takes', async () => {
  assert.deepEqual(Object.keys(lines).sort(), [...FROM_WORKER_TYPES, ...TO_WORKER_TYPES].sort(), 'one example per message of the protocol');
  const { left, read } = pair();
  for (const line of Object.values(lines)) left.write(line);
  await tick();
  assert.deepEqual(read, Object.values(lines));
  for (const [type, line] of Object.entries(lines)) assert.ok(validate(line), `${type}: ${JSON.stringify(validate.errors)}`);
  for (const bad of [{ type: 'stats', stats: { sent: 1 } }, { type: 'fault', kind: 'stall', phase: 'later' }, { type: 'hello', protocol: 1 }, { type: 'nonsense' }]) {
    assert.equal(validate(bad), false, JSON.stringify(bad));
  }
});

test('framing: lines split across chunks, several in one chunk, UTF-8 split mid-character, and the line bound', async () => {
  const [a, b] = duplexPair();
  const read: unknown[] = [];
  const problems: string[] = [];
  new LineChannel(b, { check: () => undefined, onMessage: (m) => read.push(m), onMalformed: (p, line) => problems.push(`${p}: ${line}`), onClose: () => {}, maxLineChars: 100 });
  const bytes = Buffer.from('{"type":"log","line":"é1"}\n{"type":"log","line":"2"}\n{"type":"log",' + '"line":"3"}\n');
  const cut = bytes.indexOf(0xa9); // the second byte of é
  a.write(bytes.subarray(0, cut));
  a.write(bytes.subarray(cut, 40));
  a.write(bytes.subarray(40));
  await tick();
  assert.deepEqual(read, [{ type: 'log', line: 'é1' }, { type: 'log', line: '2' }, { type: 'log', line: '3' }]);
  a.write(`{"type":"log","line":"${'x'.repeat(200)}`);
  await tick();
  assert.equal(problems.length, 1);
  assert.match(problems[0]!, /^a line of more than 100 characters/);
  a.write('"}\n{"type":"log","line":"after"}\n');
  await tick();
  assert.equal(read.length, 3, 'nothing is read after a malformed line');
});

/** The runner's end of a stream whose other end the test plays. */
function runnerEnd(): { channel: WorkerChannel; worker: Duplex; written: () => Promise<string[]>; failures: string[] } {
  const [runner, worker] = duplexPair();
  const channel = new WorkerChannel(runner);
  const failures: string[] = [];
  channel.listen({ onMessage: () => {}, onFailure: (r) => failures.push(r) });
  let text = '';
  worker.on('data', (d) => (text += String(d)));
  return { channel, worker, failures, written: async () => (await tick(), text.split('\n').filter(Boolean)) };
}

test('the handshake: a worker of the same versions is welcomed and then gets what waited; another protocol or convoy is refused with one line naming both', async () => {
  const ok = runnerEnd();
  ok.channel.send({ type: 'stop' });
  assert.deepEqual(await ok.written(), [], 'nothing before the hello');
  ok.worker.write(JSON.stringify({ type: 'hello', protocol: WORKER_PROTOCOL_VERSION, convoy: convoyVersion(), pid: 1 }) + '\n');
  assert.deepEqual((await ok.written()).map((l) => JSON.parse(l)), [{ type: 'welcome', protocol: WORKER_PROTOCOL_VERSION, convoy: convoyVersion() }, { type: 'stop' }]);
  assert.deepEqual(ok.failures, []);

  for (const [protocol, convoy] of [[WORKER_PROTOCOL_VERSION + 1, convoyVersion()], [WORKER_PROTOCOL_VERSION, '0.0.0-other']] as const) {
    const other = runnerEnd();
    other.channel.send({ type: 'stop' });
    other.worker.write(JSON.stringify({ type: 'hello', protocol, convoy, pid: 77 }) + '\n');
    const written = await other.written();
    const reason = `worker (pid 77) speaks worker protocol ${protocol} of convoy ${convoy}; this runner speaks worker protocol ${WORKER_PROTOCOL_VERSION} of convoy ${convoyVersion()}`;
    assert.deepEqual(written.map((l) => JSON.parse(l)), [{ type: 'refused', reason }], 'one line, and nothing that waited');
    assert.deepEqual(other.failures, [reason]);
    assert.equal(other.channel.refused, true);
  }
});

test('a line that breaks its message, or a message before the hello, fails the runner\'s end with the line', async () => {
  const broken = runnerEnd();
  broken.worker.write(JSON.stringify({ type: 'hello', protocol: WORKER_PROTOCOL_VERSION, convoy: convoyVersion(), pid: 1 }) + '\n');
  broken.worker.write('{"type":"stats","stats":{"sent":"many"}}\n');
  await broken.written();
  assert.equal(broken.failures.length, 1);
  assert.match(broken.failures[0]!, /^it wrote a malformed line \(\/stats must have required property '.+'\): \{"type":"stats","stats":\{"sent":"many"\}\}$/);
  const early = runnerEnd();
  early.worker.write('{"type":"ready"}\n');
  await early.written();
  assert.deepEqual(early.failures, ['it wrote ready before its hello']);
});

/** A real worker process with its stream on fd 3, the test as its runner. */
function worker(): { child: ChildProcess; stream: Duplex; lines: () => Promise<Record<string, unknown>[]>; exit: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER_MAIN], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  const stream = child.stdio[3] as Duplex;
  let text = '';
  let stderr = '';
  stream.on('data', (d) => (text += String(d)));
  stream.on('error', () => {});
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const exit = new Promise<{ code: number | null; stderr: string }>((r) => child.on('close', (code) => r({ code, stderr })));
  const lines = async () => {
    const deadline = Date.now() + 20_000;
    while (!text.includes('\n') && Date.now() < deadline) await tick();
    return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  };
  return { child, stream, lines, exit };
}

test('a worker refused at the handshake exits 3 with the reason as one line', { timeout: 30_000 }, async () => {
  const w = worker();
  const [hello] = await w.lines();
  assert.deepEqual(hello, { type: 'hello', protocol: WORKER_PROTOCOL_VERSION, convoy: convoyVersion(), pid: w.child.pid });
  w.stream.write(JSON.stringify({ type: 'refused', reason: 'worker (pid 1) speaks worker protocol 1 of convoy x; this runner speaks worker protocol 2 of convoy y' }) + '\n');
  const { code, stderr } = await w.exit;
  assert.equal(code, 3);
  assert.equal(stderr, 'worker: fatal: refused by the runner: worker (pid 1) speaks worker protocol 1 of convoy x; this runner speaks worker protocol 2 of convoy y\n');
});

test('a malformed line from the runner ends the worker: it says why (fatal) and exits 3', { timeout: 30_000 }, async () => {
  const w = worker();
  await w.lines();
  w.stream.write(JSON.stringify({ type: 'welcome', protocol: WORKER_PROTOCOL_VERSION, convoy: convoyVersion() }) + '\n' + 'not json\n');
  const { code, stderr } = await w.exit;
  assert.equal(code, 3);
  const fatal = (await w.lines()).find((m) => m.type === 'fatal');
  assert.equal(fatal?.message, 'the runner wrote a malformed line (not JSON): not json');
  assert.match(stderr, /^worker: fatal: the runner wrote a malformed line \(not JSON\): not json\n$/);
});

test('a worker whose stream ends exits at once, even while it waits for its init', { timeout: 30_000 }, async () => {
  const w = worker();
  await w.lines();
  w.stream.write(JSON.stringify({ type: 'welcome', protocol: WORKER_PROTOCOL_VERSION, convoy: convoyVersion() }) + '\n');
  await tick();
  w.stream.end();
  const { code } = await w.exit;
  assert.equal(code, 0);
});

test('a message to a worker that has just died does not end the runner', { timeout: 30_000 }, async () => {
  // Regression: a message written to a worker whose process was gone (its exit not yet seen)
  // failed with EPIPE as an unhandled 'error' event, and the run ended with a stack trace.
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER_MAIN], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
  const channel = new WorkerChannel(child.stdio[3] as Duplex);
  let welcomed = false;
  (child.stdio[3] as Duplex).on('data', () => (welcomed = true));
  while (!welcomed) await tick();
  await tick();
  child.kill('SIGKILL');
  // Busy-wait until it is dead (a zombie: its descriptors closed, its exit not yet reaped): the
  // event loop must not run, or the stream's end would be seen first.
  const until = Date.now() + 5_000;
  const dead = () => {
    try {
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
    } catch {
      return true;
    }
  };
  while (!dead() && Date.now() < until);
  assert.ok(dead(), 'the worker died');
  for (let i = 0; i < 50; i++) channel.send({ type: 'start', startUs: i });
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(channel.open, false);
});

test('a worker that writes a malformed line mid-run is ended, and the run is unknown with the line in its reason', { timeout: 120_000 }, async (t) => {
  const saved = process.env.CONVOY_WORKER_NODE_ARGS;
  t.after(() => (saved === undefined ? delete process.env.CONVOY_WORKER_NODE_ARGS : (process.env.CONVOY_WORKER_NODE_ARGS = saved)));
  process.env.CONVOY_WORKER_NODE_ARGS = `--require ${fileURLToPath(new URL('./fixtures/malformed-line.cjs', import.meta.url))}`;
  const { result } = await runHere(SMOKE);
  assert.equal(result.verdict.status, 'unknown');
  const failure = (result as unknown as { harness: { failure: { reason: string } } }).harness.failure;
  // Mid-run it is "worker c1 died (exit 128): it wrote ..."; a slow start-up reads "c1: it wrote ... (consumer start-up)".
  assert.match(failure.reason, /\bit wrote a malformed line \(not JSON\): this is not json\b/);
});

test('docs/worker-protocol.md lists every message, each with its direction, in the protocol\'s order', () => {
  const doc = readFileSync(new URL('../../docs/worker-protocol.md', import.meta.url), 'utf8');
  const rows = [...doc.matchAll(/^\| `([a-z-]+)` \| (runner|worker) \|/gm)].map((m) => [m[1]!, m[2]!]);
  assert.deepEqual(rows.filter(([, from]) => from === 'runner').map(([type]) => type), [...TO_WORKER_TYPES]);
  assert.deepEqual(rows.filter(([, from]) => from === 'worker').map(([type]) => type), [...FROM_WORKER_TYPES]);
});
