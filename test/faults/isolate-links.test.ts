/**
 * The isolate fault's plumbing, no broker needed: Kafka's proxied peer links give
 * each directed pair of nodes its own address, the fault picks exactly the links between the
 * isolated set and the rest, and the active controller is read from the quorum-state files.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostsFile, internalHostName, peerLinks, peerProxies, votersFor } from '../../brokers/kafka/peer-links.ts';
import { currentLeader } from '../../brokers/kafka/quorum-state.ts';
import { capabilities } from '../../brokers/kafka/capabilities.ts';
import { resolveSettings } from '../../brokers/kafka/settings.ts';
import { instanceKey } from '../../brokers/kafka/local.ts';
import { cutLinks } from '../../harness/faults/isolate.ts';

const ports = [1, 2, 3].map((id) => ({ id, internal: 1000 + id, controller: 2000 + id }));

test('one proxy per directed pair and listener, each on its own loopback address, in front of the peer', () => {
  const ps = peerProxies(ports, 77);
  assert.equal(ps.length, 3 * 2 * 2);
  assert.equal(new Set(ps.map((p) => p.listen)).size, ps.length, 'no two proxies share an address');
  const p = ps.find((x) => x.from === 1 && x.to === 2 && x.traffic === 'replication')!;
  assert.deepEqual(p, { name: 'kafka-peer-1-2-replication', from: 1, to: 2, traffic: 'replication', listen: '127.77.1.2:1002', upstream: '127.0.0.1:1002' });
  const back = ps.find((x) => x.from === 2 && x.to === 1 && x.traffic === 'controller')!;
  assert.equal(back.listen, '127.77.2.1:2001');
});

test("each node resolves its peers' INTERNAL names to its own proxies, and lists its voters through them", () => {
  const hosts = hostsFile(2, [1, 2, 3], 77);
  assert.match(hosts, new RegExp(`^127\\.77\\.2\\.1 ${internalHostName(1).replace(/\./g, '\\.')}$`, 'm'));
  assert.match(hosts, new RegExp(`^127\\.0\\.0\\.1 ${internalHostName(2).replace(/\./g, '\\.')}$`, 'm'));
  assert.match(hosts, new RegExp(`^127\\.77\\.2\\.3 ${internalHostName(3).replace(/\./g, '\\.')}$`, 'm'));
  assert.match(hosts, /^127\.0\.0\.1 localhost/m);
  assert.equal(votersFor(2, ports, 77), '1@127.77.2.1:2001,2@127.0.0.1:2002,3@127.77.2.3:2003');
});

test('isolate cuts exactly the links between the isolated nodes and the rest, by direction and traffic', () => {
  const links = [{ name: 'clients', proxies: ['c'], toxiproxyUrl: 'u' }, ...peerLinks(peerProxies(ports, 9), 'u')];
  const names = (l: { name: string }[]) => l.map((x) => x.name).sort();
  assert.deepEqual(names(cutLinks(links, ['node-3'], 'both', 'replication')), [
    'node-1>node-3:replication',
    'node-2>node-3:replication',
    'node-3>node-1:replication',
    'node-3>node-2:replication',
  ]);
  assert.deepEqual(names(cutLinks(links, ['node-3'], 'outbound', 'controller')), ['node-3>node-1:controller', 'node-3>node-2:controller']);
  assert.deepEqual(names(cutLinks(links, ['node-1', 'node-2'], 'inbound', 'all')), [
    'node-3>node-1:controller',
    'node-3>node-1:replication',
    'node-3>node-2:controller',
    'node-3>node-2:replication',
  ]);
  assert.equal(cutLinks(links, ['node-1'], 'both', 'all').length, 8);
  assert.ok(!cutLinks(links, ['node-1'], 'both', 'all').some((l) => l.name === 'clients'), 'client links are never cut');
});

test('the active controller is the leader of the newest epoch any node recorded', () => {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-quorum-'));
  const write = (node: number, state: Record<string, unknown>) => {
    mkdirSync(join(dir, `n${node}`, '__cluster_metadata-0'), { recursive: true });
    writeFileSync(join(dir, `n${node}`, '__cluster_metadata-0', 'quorum-state'), JSON.stringify({ clusterId: '', votedId: -1, ...state }));
  };
  const dirs = [1, 2, 3].map((n) => join(dir, `n${n}`));
  write(1, { leaderId: 2, leaderEpoch: 2 });
  write(2, { leaderId: 3, leaderEpoch: 3 });
  assert.equal(currentLeader(dirs), 3, 'node-3 absent: the others decide');
  write(3, { leaderId: -1, leaderEpoch: 4 });
  assert.equal(currentLeader(dirs), undefined, 'an election under way: no leader yet');
  write(1, { leaderId: 1, leaderEpoch: 4 });
  assert.equal(currentLeader(dirs), 1);
});

test('isolate is possible only on a local cluster of several nodes with proxied peer links, which gets its own reuse key', () => {
  const s = (raw: Record<string, unknown>) => resolveSettings({ kind: 'kafka', ...raw });
  assert.equal(capabilities(s({ nodes: 3, peerLinks: 'proxied' }), 'local').isolate, true);
  assert.match(String(capabilities(s({ nodes: 3 }), 'local').isolate), /peerLinks: proxied/);
  assert.match(String(capabilities(s({ nodes: 1, peerLinks: 'proxied' }), 'local').isolate), /single node/);
  assert.match(String(capabilities(s({ nodes: 3, peerLinks: 'proxied' }), 'containers').isolate), /only a local cluster/);
  assert.notEqual(instanceKey('4.4.0', s({ nodes: 3, peerLinks: 'proxied' })), instanceKey('4.4.0', s({ nodes: 3 })));
});
