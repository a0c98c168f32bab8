/**
 * A convoy agent on loopback, through its own protocol: the token and versions checked at the
 * handshake with one line of refusal; a spawned worker's stream carried to the runner byte for
 * byte (the worker protocol's hello and welcome go through); files of the run's folder read from
 * an offset, and none outside it; a worker's exit reported; a runner that goes silent has its
 * run's workers killed, so nothing is left running.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { startAgent, type RunningAgent } from '../../harness/agent/server.ts';
import { AgentLink } from '../../harness/agent/client.ts';
import { readFirstLine } from '../../harness/agent/first-line.ts';
import { WORKER_PROTOCOL_VERSION } from '../../harness/workers/message-names.ts';
import { convoyVersion } from '../../harness/convoy-version.ts';
import { AGENT_PROTOCOL_VERSION, FROM_AGENT_MESSAGES, TO_AGENT_MESSAGES } from '../../harness/agent/messages.ts';
import { measureOffset, offsetFrom } from '../../harness/agent/clock-offset.ts';
import { AGENT_CA_ENV, agentCa } from '../../harness/runner/placement.ts';
import { execFileSync } from 'node:child_process';

const TOKEN = 'a-shared-secret';

async function withAgent(fn: (agent: RunningAgent, workDir: string) => Promise<void>, runnerTimeoutMs = 15_000): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'convoy-agent-'));
  const agent = await startAgent({ host: '127.0.0.1', port: 0, token: TOKEN, workDir, runnerTimeoutMs, log: () => {} });
  try {
    await fn(agent, workDir);
  } finally {
    await agent.close();
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function firstLineOf(port: number, hello: Record<string, unknown>): Promise<string> {
  const s = connect({ host: '127.0.0.1', port });
  await once(s, 'connect');
  s.write(JSON.stringify(hello) + '\n');
  let got = '';
  s.on('data', (d) => (got += d));
  await once(s, 'close');
  return got.trim();
}

test('a wrong token, another convoy version or a first line that is no hello is refused with one line', async () => {
  await withAgent(async (agent) => {
    const hello = { type: 'hello', protocol: AGENT_PROTOCOL_VERSION, convoy: convoyVersion(), token: TOKEN, runId: 'r1', purpose: 'control' };
    assert.deepEqual(JSON.parse(await firstLineOf(agent.port, { ...hello, token: 'guess' })), { type: 'refused', reason: 'wrong token' });
    const other = JSON.parse(await firstLineOf(agent.port, { ...hello, convoy: '9.9.9' }));
    assert.equal(other.type, 'refused');
    assert.match(other.reason, /runner speaks agent protocol 2 of convoy 9\.9\.9; this agent speaks agent protocol 2 of convoy /);
    // Version 1 had no clock readings: a runner of it is refused, not half-served.
    assert.match(JSON.parse(await firstLineOf(agent.port, { ...hello, protocol: 1 })).reason, /runner speaks agent protocol 1 of convoy .*; this agent speaks agent protocol 2/);
    assert.match(JSON.parse(await firstLineOf(agent.port, { type: 'ping', id: 1 })).reason, /the first line must be a hello/);
    await assert.rejects(AgentLink.connect({ address: { host: '127.0.0.1', port: agent.port }, token: 'guess', runId: 'r1' }), /agent 127\.0\.0\.1:\d+: refused: wrong token/);
  });
});

test('a spawned worker speaks the worker protocol through the agent, and its exit is reported', async () => {
  await withAgent(async (agent) => {
    const link = await AgentLink.connect({ address: { host: '127.0.0.1', port: agent.port }, token: TOKEN, runId: 'r2' });
    assert.match(link.info.runDir, /r2$/);
    const exits: Array<{ worker: string; code: number | null }> = [];
    link.onExit((worker, code) => exits.push({ worker, code }));
    const pid = await link.spawn('c1');
    await assert.rejects(link.attach('c9'), /no worker c9 of run r2 here/);
    // The worker's own first line comes through unchanged: its hello, with the pid the agent gave.
    const stream = await link.attach('c1');
    const hello = JSON.parse(await readFirstLine(stream, 4096, 10_000));
    assert.deepEqual(hello, { type: 'hello', protocol: WORKER_PROTOCOL_VERSION, convoy: convoyVersion(), pid });
    stream.write(JSON.stringify({ type: 'welcome', protocol: WORKER_PROTOCOL_VERSION, convoy: convoyVersion() }) + '\n');
    // The runner ends the stream: the worker exits, as a local one does when its runner goes.
    stream.end();
    for (let i = 0; i < 100 && exits.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(exits.map((e) => e.worker), ['c1']);
    assert.ok(!alive(pid), 'the worker process is gone');
    await link.bye();
  });
});

test('files of the run folder are read from an offset; a path outside it is refused', async () => {
  const workDir = mkdtempSync(join(tmpdir(), 'convoy-agent-'));
  const agent = await startAgent({ host: '127.0.0.1', port: 0, token: TOKEN, workDir, log: () => {} });
  try {
    const link = await AgentLink.connect({ address: { host: '127.0.0.1', port: agent.port }, token: TOKEN, runId: 'r3' });
    writeFileSync(join(link.info.runDir, 'c1.jsonl'), 'line one\nline two\n');
    assert.equal((await link.read('c1.jsonl', 0)).toString(), 'line one\nline two\n');
    assert.equal((await link.read('c1.jsonl', 9)).toString(), 'line two\n');
    assert.equal((await link.read('c1.jsonl', 18)).length, 0, 'nothing past the end');
    assert.equal((await link.read('not-yet.jsonl', 0)).length, 0, 'a file not written yet reads as empty');
    await assert.rejects(link.read('../../etc/passwd', 0), /outside the run's folder/);
    await link.bye();
  } finally {
    await agent.close();
  }
});

test('a runner that goes silent has its run stopped: the workers are killed', async () => {
  await withAgent(async (agent) => {
    // Heartbeats far apart: the agent hears nothing for longer than its timeout.
    const link = await AgentLink.connect({ address: { host: '127.0.0.1', port: agent.port }, token: TOKEN, runId: 'r4', pingMs: 60_000, lostAfterMs: 120_000 });
    const pid = await link.spawn('p1');
    assert.ok(alive(pid));
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(!alive(pid), 'killed once the runner was unheard for the timeout');
    await link.bye();
  }, 800);
});

test('an agent\'s clock, measured over its control connection: here one clock, so the offset is within the uncertainty', async () => {
  await withAgent(async (agent) => {
    const link = await AgentLink.connect({ address: { host: '127.0.0.1', port: agent.port }, token: TOKEN, runId: 'r-clock' });
    const m = await measureOffset(link);
    assert.ok(m.uncertainty >= 1, 'at least the reading\'s microsecond');
    assert.ok(Math.abs(m.offset) <= m.uncertainty, `offset ${m.offset} µs, uncertainty ${m.uncertainty} µs`);
    await link.bye();
  });
});

test('the offset from round trips: the shortest one\'s, NTP-style', () => {
  // The agent is 1000 µs ahead; the second trip was delayed on its way back.
  const m = offsetFrom([
    { sentUs: 100, receivedUs: 140, agentUs: 1_120, granularityUs: 2 },
    { sentUs: 200, receivedUs: 400, agentUs: 1_210, granularityUs: 2 },
  ]);
  assert.deepEqual(m, { at: 120, offset: 1_000, uncertainty: 22 });
  assert.throws(() => offsetFrom([]), /no clock round trips/);
});

test('docs/agents.md lists every message, each with its direction, in the protocol\'s order', () => {
  const doc = readFileSync(new URL('../../docs/agents.md', import.meta.url), 'utf8');
  const rows = [...doc.matchAll(/^\| `([a-z-]+)` \| (runner|agent) \|/gm)].map((m) => [m[1]!, m[2]!]);
  assert.deepEqual(rows.filter(([, from]) => from === 'runner').map(([type]) => type), Object.keys(TO_AGENT_MESSAGES));
  assert.deepEqual(rows.filter(([, from]) => from === 'agent').map(([type]) => type), Object.keys(FROM_AGENT_MESSAGES));
});

test('convoy agent: a busy port or a --listen that is no host:port is one line, no stack', async () => {
  const { spawnSync } = await import('node:child_process');
  const cli = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [new URL('../../bin/convoy.js', import.meta.url).pathname, 'agent', ...args], { encoding: 'utf8', env: { ...process.env, CONVOY_AGENT_TOKEN: TOKEN, ...env }, timeout: 60_000 });
  const bad = cli(['--listen', 'nowhere']);
  assert.equal(bad.status, 2, bad.stderr);
  assert.equal(bad.stderr.trim(), 'convoy: --listen nowhere: expected host:port, such as 10.0.0.7:7411');
  const noToken = cli(['--listen', '127.0.0.1:0'], { CONVOY_AGENT_TOKEN: '' });
  assert.equal(noToken.status, 2, noToken.stderr);
  assert.match(noToken.stderr, /^convoy: agent: set CONVOY_AGENT_TOKEN/);
  await withAgent(async (agent) => {
    const busy = cli(['--listen', `127.0.0.1:${agent.port}`]);
    assert.equal(busy.status, 3, busy.stderr);
    assert.equal(busy.stderr.trim(), `convoy: agent: cannot listen on 127.0.0.1:${agent.port}: EADDRINUSE`);
  });
});

test('an agent with a certificate: the runner that trusts its CA (CONVOY_AGENT_CA) speaks TLS to it, one that does not is refused, and an unreadable CA file is one line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-agent-tls-'));
  // A CA, and the agent's certificate for 127.0.0.1 signed by it.
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=convoy-test-ca');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'agent.key', '-out', 'agent.csr', '-subj', '/CN=agent');
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  ssl('x509', '-req', '-in', 'agent.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'agent.pem', '-days', '1', '-extfile', 'san.ext');
  const agent = await startAgent({ host: '127.0.0.1', port: 0, token: TOKEN, workDir: mkdtempSync(join(tmpdir(), 'convoy-agent-')), log: () => {}, tls: { cert: readFileSync(join(dir, 'agent.pem'), 'utf8'), key: readFileSync(join(dir, 'agent.key'), 'utf8') } });
  const address = { host: '127.0.0.1', port: agent.port };
  try {
    process.env[AGENT_CA_ENV] = join(dir, 'ca.pem');
    const link = await AgentLink.connect({ address, token: TOKEN, runId: 'r-tls', tlsCa: agentCa() });
    const clock = await measureOffset(link);
    assert.ok(Math.abs(clock.offset) <= clock.uncertainty, JSON.stringify(clock));
    await link.bye();
    // Its own CA is not the one that signed the agent's certificate.
    await assert.rejects(AgentLink.connect({ address, token: TOKEN, runId: 'r-tls-2', tlsCa: readFileSync(join(dir, 'agent.pem'), 'utf8'), connectTimeoutMs: 5_000 }), /agent 127\.0\.0\.1:\d+/);
    process.env[AGENT_CA_ENV] = join(dir, 'missing.pem');
    assert.throws(() => agentCa(), (e: Error) => /^--agent: CONVOY_AGENT_CA=.*missing\.pem: no such file$/.test(e.message));
  } finally {
    delete process.env[AGENT_CA_ENV];
    await agent.close();
  }
});
