/**
 * The isolate fault on a real 3-node cluster with proxied peer links: it cuts one
 * node's peer links and no other link, the cluster sees it (the node is fenced, the ISR
 * shrinks), and what it changed is undone by the heal, by the clean-up that Ctrl-C runs, and by
 * the harness's processes going away (a crash: the reaper kills them), since the cut lives in
 * the run's own Toxiproxy and nowhere else (no address, qdisc or firewall rule is created).
 */
// @needs own kafka
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Deployment } from '../../harness/broker/contract.ts';
import type { FaultContext } from '../../harness/faults/contract.ts';
import type { FaultSpec } from '../../harness/spec/types.ts';
import { onCleanup, runCleanup } from '../../harness/runtime/cleanup.ts';
import { ToxiproxyApi } from '../../harness/net/toxiproxy.ts';
import { kafkaAdmin, type KafkaAdmin } from '../../brokers/kafka/admin.ts';
import { parseEndpoint } from '../../brokers/kafka/endpoint.ts';
import isolate from '../../harness/faults/isolate.ts';
import { runNames, settings, startKafka, waitFor } from '../../brokers/kafka/test/helpers.ts';

const s = settings({ nodes: 3, peerLinks: 'proxied', topic: { partitions: 3 } });
let dep: Deployment;
let admin: KafkaAdmin;
let stopKafka: () => Promise<void> = async () => {};

before(async () => {
  const started = await startKafka({ nodes: 3, peerLinks: 'proxied', topic: { partitions: 3 } });
  dep = started.dep;
  stopKafka = started.stop;
  admin = await kafkaAdmin(parseEndpoint(dep.endpoint), s, runNames('isolate'));
  await admin.createDestinations();
});

after(async () => {
  await admin?.close().catch(() => {});
  await stopKafka();
});

function context(): FaultContext {
  return {
    runtime: 'local',
    allowDestructive: false,
    deployment: dep,
    admin,
    names: runNames('isolate'),
    producers: () => [],
    consumers: () => [],
    storeFile: '/nonexistent/state.sqlite', // no consumers: nothing reads it
    restartConsumer: async () => {},
    log: () => {},
  };
}

const spec = (over: Record<string, unknown>): FaultSpec => ({ name: 'cut', kind: 'isolate', atMs: 0, durationMs: 1000, ...over }) as FaultSpec;
const peers = () => dep.links.filter((l) => l.peer);
const api = () => new ToxiproxyApi(dep.links[0]!.toxiproxyUrl);
async function peerAddresses(): Promise<string[]> {
  return Promise.all(peers().map(async (l) => ((await api().describe(l.proxies[0]!)) as unknown as { listen: string }).listen));
}
async function toxicsByProxy(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const l of dep.links) for (const p of l.proxies) out[p] = (await api().describe(p)).toxics.length;
  return out;
}

test('twelve peer links (3 nodes x 2 peers x replication, controller) beside the client links', () => {
  assert.equal(peers().length, 12);
  assert.deepEqual(
    dep.links.filter((l) => !l.peer).map((l) => l.name),
    ['clients', 'node-1', 'node-2', 'node-3'],
  );
});

test("a cut node is fenced and leaves every ISR; only its peer links carry toxics; the heal undoes it and the ISR is full again", async () => {
  // A loaded machine can still have node-3 catching up: the cut must start from full ISRs.
  await waitFor(
    async () => {
      const r = (await admin.describeReplication()) as { lanes?: Record<string, { isr: number[] }> };
      return !!r.lanes && Object.values(r.lanes).every((p) => p.isr.length === 3);
    },
    60_000,
    'every ISR full before the cut',
  );
  const fault = await isolate.start(spec({ nodes: 'node-3' }), context());
  const cut = (fault.evidence as { proxies: { name: string }[] }).proxies.map((p) => p.name).sort();
  assert.deepEqual(cut, peers().filter((l) => l.peer!.from === 'node-3' || l.peer!.to === 'node-3').flatMap((l) => l.proxies).sort());
  const during = await toxicsByProxy();
  for (const [proxy, n] of Object.entries(during)) assert.equal(n, cut.includes(proxy) ? 2 : 0, `${proxy}: ${n} toxics`);
  await waitFor(
    async () => {
      const r = (await admin.describeReplication()) as { lanes: Record<string, { isr: number[] }> };
      return Object.values(r.lanes).every((p) => !p.isr.includes(3));
    },
    60_000,
    'node-3 out of every ISR',
  );
  const end = (await fault.end()) as { recoveredAtMs?: number; isrChanges: unknown[] };
  assert.ok(end.recoveredAtMs !== undefined, `the ISR was full again after the heal: ${JSON.stringify(end)}`);
  // The evidence (polled, so it may miss a poll when the admin call fails under load) shows a
  // state with node-3 in no ISR, and after it one with every ISR full.
  const isrs = (c: unknown) => Object.values((c as { lanes: Record<string, string> }).lanes).map((l) => l.split(' isr ')[1]!.split(','));
  const shrunk = end.isrChanges.findIndex((c) => isrs(c).every((isr) => !isr.includes('3')));
  assert.ok(shrunk >= 0, `the evidence shows node-3 out of every ISR: ${JSON.stringify(end.isrChanges)}`);
  assert.ok(end.isrChanges.slice(shrunk + 1).some((c) => isrs(c).every((isr) => isr.length === 3)), `and every ISR full again after it: ${JSON.stringify(end.isrChanges)}`);
  assert.ok(Object.values(await toxicsByProxy()).every((n) => n === 0), 'no toxic left');
});

/** Loopback listeners (host:port) from /proc/net/tcp. */
function listeners(): string[] {
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f[3] === '0A')
    .map((f) => {
      const [hex, port] = f[1]!.split(':') as [string, string];
      const ip = [3, 2, 1, 0].map((i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join('.');
      return `${ip}:${parseInt(port, 16)}`;
    });
}

test('a harness crash leaves nothing of a cut behind: the cut exists only inside the Toxiproxy process, which the reaper kills', async () => {
  const lo = () => execFileSync('ip', ['addr', 'show', 'dev', 'lo'], { encoding: 'utf8' }) + execFileSync('tc', ['qdisc', 'show', 'dev', 'lo'], { encoding: 'utf8' });
  const loBefore = lo();
  const fault = await isolate.start(spec({ nodes: 'node-2' }), context());
  // The cut adds no address and no qdisc: it is only in the proxies...
  assert.equal(lo(), loBefore);
  // ...and every peer address is a socket of the run's Toxiproxy process (the one whose group
  // the reaper kills when the harness dies: test/runtime/reaper.test.ts).
  const port = new URL(dep.links[0]!.toxiproxyUrl).port;
  const owner = (sport: string) => /pid=(\d+)/.exec(execFileSync('ss', ['-ltnpH', `sport = :${sport}`], { encoding: 'utf8' }))?.[1];
  const toxiproxy = owner(port);
  assert.ok(toxiproxy, 'found the Toxiproxy process');
  const listen = await peerAddresses();
  assert.equal(listen.length, 12);
  for (const a of listen) {
    const lines = execFileSync('ss', ['-ltnpH', `src = ${a}`], { encoding: 'utf8' });
    assert.match(lines, new RegExp(`pid=${toxiproxy},`), `${a} is held by Toxiproxy: ${lines}`);
  }
  await fault.end();
});

test('Ctrl-C: the clean-up the signal handler runs removes an active cut', async () => {
  const fault = await isolate.start(spec({ nodes: ['node-1'], traffic: 'controller' }), context());
  let afterUndo: Record<string, number> | undefined;
  onCleanup('undo fault cut', async () => {
    await fault.end();
    afterUndo = await toxicsByProxy();
  });
  assert.ok(Object.values(await toxicsByProxy()).some((n) => n > 0));
  // What SIGINT runs: every undo, newest first, so the cut is healed before the brokers stop.
  const listen = await peerAddresses();
  await runCleanup(() => {});
  assert.ok(afterUndo && Object.values(afterUndo).every((n) => n === 0), `no toxic left after the fault's undo: ${JSON.stringify(afterUndo)}`);
  // The clean-up stopped the cluster and its Toxiproxy: no peer address is left listening.
  assert.deepEqual(listeners().filter((a) => listen.includes(a)), []);
});
