/** RabbitMQ module pieces that need no broker: settings, names, compose services, counts. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import rabbitmq from '../index.ts';
import { resolveSettings, settingsErrors } from '../settings.ts';
import { destinations } from '../names.ts';
import { mainQueueArgs } from '../admin.ts';
import { movedBuckets, parseRing, ringExpression } from '../hash-ring.ts';
import { parseQuorumStatus, quorumLanes } from '../quorum-status.ts';
import { cliInetrc, nodeInetrc, peerLinks, peerProxies } from '../peer-links.ts';
import { deliveryCountOf } from '../client.ts';
import { preferredNode } from '../connection.ts';
import { CONTAINER_PORTS, containerServices } from '../containers.ts';
import { nodeConfig, nodeEnv, nodeLayout, startFailureLines } from '../local.ts';
import { InputError } from '../../../harness/errors.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from 'amqplib';

const names = { runId: 'r1', prefix: 'convoy-r1' };

describe('rabbitmq settings', () => {
  it('fills in defaults and is idempotent', () => {
    const s = resolveSettings({ kind: 'rabbitmq' });
    assert.equal(s.topology, 'single-active');
    assert.equal(s.queueType, 'classic');
    assert.equal(s.durable, true);
    assert.equal(s.confirms.maxOutstanding, 1000);
    assert.equal(s.deadLetter.enabled, false);
    assert.deepEqual(resolveSettings(s), s);
    const h = resolveSettings({ kind: 'rabbitmq', topology: 'hash-lanes', deadLetter: { retryQueue: { ttlMs: 100 } } });
    assert.equal(h.lanes, 4);
    assert.equal(h.deadLetter.enabled, true);
    assert.deepEqual(resolveSettings(h), h);
  });

  it('rejects typos, naming the field and the allowed ones', () => {
    assert.throws(
      () => resolveSettings({ kind: 'rabbitmq', topolgy: 'competing' }),
      (e: unknown) => e instanceof InputError && e.exitCode === 2 && e.detail.some((l) => /unknown field "topolgy".*topology/.test(l)),
    );
    assert.match(settingsErrors({ kind: 'rabbitmq', topology: 'fifo' }).join('\n'), /broker\.topology.*competing, single-active, hash-lanes/);
    assert.match(settingsErrors({ kind: 'rabbitmq', confirms: { maxOutstandng: 5 } }).join('\n'), /broker\.confirms: unknown field "maxOutstandng"/);
    assert.match(settingsErrors({ kind: 'rabbitmq', deadLetter: { retryQueue: {} } }).join('\n'), /ttlMs/);
    assert.match(settingsErrors({ kind: 'rabbitmq', lanes: 0 }).join('\n'), /broker\.lanes/);
    assert.match(settingsErrors({ kind: 'rabbitmq', url: 'http://x' }).join('\n'), /broker\.url/);
  });

  it('quorum queues are durable; durable: false with quorum is an input error', () => {
    assert.equal(resolveSettings({ kind: 'rabbitmq', queueType: 'quorum' }).durable, true);
    assert.throws(() => resolveSettings({ kind: 'rabbitmq', queueType: 'quorum', durable: false }), InputError);
  });

  it('publishes the same schema as the module', () => {
    assert.equal(rabbitmq.name, 'rabbitmq');
    assert.equal((rabbitmq.settingsSchema as { additionalProperties: boolean }).additionalProperties, false);
  });
});

describe('rabbitmq destinations', () => {
  it('names everything from the run prefix', () => {
    const d = destinations(resolveSettings({ kind: 'rabbitmq', topology: 'hash-lanes', lanes: 12, deadLetter: { retryQueue: { ttlMs: 50 } } }), names);
    assert.equal(d.publishExchange, 'convoy-r1.hash');
    assert.equal(d.queues.length, 12);
    assert.equal(d.queues[0], 'convoy-r1.lane-00');
    assert.equal(d.queues[11], 'convoy-r1.lane-11');
    assert.equal(d.routingKey('order-7'), 'order-7');
    assert.equal(d.retryQueue, 'convoy-r1.retry');
    assert.equal(d.deadLetterQueue, 'convoy-r1.dlq');
    const c = destinations(resolveSettings({ kind: 'rabbitmq', topology: 'competing' }), names);
    assert.deepEqual(c.queues, ['convoy-r1.main']);
    assert.equal(c.publishExchange, '');
    assert.equal(c.routingKey('k'), 'convoy-r1.main');
    assert.equal(c.deadLetterExchange, undefined);
  });

  it('queue arguments follow the topology and queue type', () => {
    const sac = resolveSettings({ kind: 'rabbitmq', queueType: 'quorum', deadLetter: { enabled: true, maxDeliveries: 5 } });
    assert.deepEqual(mainQueueArgs(sac, destinations(sac, names)), {
      'x-queue-type': 'quorum',
      'x-single-active-consumer': true,
      'x-dead-letter-exchange': 'convoy-r1.dlx',
      'x-delivery-limit': 5,
    });
    const comp = resolveSettings({ kind: 'rabbitmq', topology: 'competing', deadLetter: { retryQueue: { ttlMs: 10 } } });
    assert.deepEqual(mainQueueArgs(comp, destinations(comp, names)), { 'x-queue-type': 'classic', 'x-dead-letter-exchange': 'convoy-r1.retry-x' });
  });
});

describe('rabbitmq delivery counts', () => {
  const msg = (redelivered: boolean, headers: Record<string, unknown> = {}) =>
    ({ content: Buffer.alloc(0), fields: { redelivered }, properties: { headers } }) as unknown as Message;
  const main = new Set(['convoy-r1.main']);
  it('classic: redelivered means at least 2; quorum: x-delivery-count + 1', () => {
    assert.equal(deliveryCountOf(msg(false), 'classic', main), 1);
    assert.equal(deliveryCountOf(msg(true), 'classic', main), 2);
    assert.equal(deliveryCountOf(msg(true, { 'x-delivery-count': 3 }), 'quorum', main), 4);
  });
  it('adds trips through dead-lettering of this run\'s main queues', () => {
    const xdeath = [
      { queue: 'convoy-r1.retry', reason: 'expired', count: 2 },
      { queue: 'convoy-r1.main', reason: 'rejected', count: 2 },
      { queue: 'other', reason: 'rejected', count: 9 },
    ];
    assert.equal(deliveryCountOf(msg(false, { 'x-death': xdeath }), 'classic', main), 3);
  });
});

describe('rabbitmq containers and local files', () => {
  it('generates a node with the hash exchange plugin and a toxiproxy in front', () => {
    const [rabbit, toxi] = containerServices(resolveSettings({ kind: 'rabbitmq' }));
    assert.equal(rabbit!.image, 'rabbitmq:3.10-management');
    assert.match(rabbit!.command!.join(' '), /rabbitmq-plugins enable --offline rabbitmq_consistent_hash_exchange/);
    assert.ok(rabbit!.healthcheck!.test.includes('rabbitmq-diagnostics'));
    assert.equal(toxi!.image, 'ghcr.io/shopify/toxiproxy:2.12.0');
    assert.deepEqual(toxi!.dependsOn, ['rabbitmq']);
    const hostPorts = [rabbit!, toxi!].flatMap((s) => s.ports.map((p) => p.host));
    assert.ok(!hostPorts.includes(5672) && !hostPorts.includes(8474), 'no clash with a broker or toxiproxy already on the machine');
    assert.ok(hostPorts.includes(CONTAINER_PORTS.amqpViaProxy));
    assert.equal(rabbitmq.containerServices({ kind: 'rabbitmq', version: '3.13' })[0]!.image, 'rabbitmq:3.13-management');
  });

  it('writes a private node: own name, ports, dirs; the user\'s RABBITMQ_ env is ignored', () => {
    const layout = nodeLayout('/w/rabbitmq', 41000, 41001);
    assert.equal(layout.nodeName, 'convoy-41000@localhost');
    assert.match(nodeConfig(layout), /^listeners\.tcp\.default = 127\.0\.0\.1:41000$/m);
    process.env.RABBITMQ_NODENAME = 'rabbit@elsewhere';
    try {
      const env = nodeEnv(layout);
      assert.equal(env.RABBITMQ_NODENAME, 'convoy-41000@localhost');
      assert.equal(env.RABBITMQ_DIST_PORT, '41001');
      assert.equal(env.RABBITMQ_CONF_ENV_FILE, '/w/rabbitmq/rabbitmq-env.conf');
      assert.match(env.RABBITMQ_MNESIA_BASE!, /^\/w\/rabbitmq\/data\//);
    } finally {
      delete process.env.RABBITMQ_NODENAME;
    }
  });

  it('start failures quote the error lines before the tail', () => {
    const f = join(mkdtempSync(join(tmpdir(), 'convoy-rmq-unit-')), 'rabbitmq.log');
    writeFileSync(f, ['boot', '[error] <0.1.0> could_not_start_listener 127.0.0.1 5672 eaddrinuse', ...Array(30).fill('noise')].join('\n'));
    const lines = startFailureLines(f);
    assert.match(lines[0]!, /eaddrinuse/);
    assert.equal(lines.at(-1), 'noise');
  });
});

describe('the consistent hash ring, as rabbitmqctl eval prints it', () => {
  it('reads each bucket\'s queue, and says why when there is none', () => {
    const printed = '[{0,<<"q-a">>},\n {1,<<"q-c">>},\n {2,<<"q-b">>}]\n';
    assert.deepEqual(parseRing('x', printed), { exchange: 'x', buckets: { 0: 'q-a', 1: 'q-c', 2: 'q-b' } });
    assert.deepEqual(parseRing('x', 'none\n'), { exchange: 'x', error: 'the node has no ring for this exchange' });
    assert.match(parseRing('x', '{badrpc,nodedown}').error!, /rabbitmqctl eval said: \{badrpc,nodedown\}/);
    assert.deepEqual(movedBuckets(parseRing('x', printed), parseRing('x', '[{0,<<"q-a">>},{1,<<"q-b">>},{2,<<"q-c">>}]')), ['1', '2']);
  });
  it('puts only names convoy makes into the Erlang expression', () => {
    assert.match(ringExpression('convoy.run-1.hash'), /<<"convoy\.run-1\.hash">>/);
    assert.throws(() => ringExpression('x">>, evil'), /not a name convoy makes/);
  });
});

describe('a local cluster', () => {
  it('each node lists every peer for classic peer discovery, with no random start-up wait; one node lists none', () => {
    const l = nodeLayout('/tmp/x', 5672, 25672);
    const conf = nodeConfig(l, ['convoy-5672@localhost', 'convoy-5673@localhost', 'convoy-5674@localhost']);
    assert.match(conf, /^cluster_formation\.peer_discovery_backend = classic_config$/m);
    assert.match(conf, /^cluster_formation\.classic_config\.nodes\.3 = convoy-5674@localhost$/m);
    assert.match(conf, /^cluster_formation\.randomized_startup_delay_range\.max = 1$/m);
    assert.doesNotMatch(nodeConfig(l), /cluster_formation/);
  });
  it('a client prefers the node of its number, round the cluster', () => {
    assert.deepEqual(['p-producer-1', 'c2', 'c3', 'admin'].map(preferredNode), [0, 1, 2, 0]);
    assert.deepEqual(resolveSettings({ kind: 'rabbitmq' }).nodes, 1);
    assert.deepEqual(rabbitmq.capabilities!(resolveSettings({ kind: 'rabbitmq', nodes: 3 }), 'local').nodes, ['node-1', 'node-2', 'node-3']);
    assert.match(settingsErrors({ kind: 'rabbitmq', nodes: 9 }).join('\n'), /broker\.nodes/);
  });
  it('proxied peer links: node i finds node j at the proxy i->j on 127.R.i.j, on j\'s distribution port; the CLI finds every node directly', () => {
    const proxies = peerProxies([25001, 25002, 25003], 77);
    assert.equal(proxies.length, 6);
    assert.deepEqual(proxies.find((p) => p.from === 1 && p.to === 3), { name: 'rabbitmq-peer-1-3', from: 1, to: 3, listen: '127.77.1.3:25003', upstream: '127.0.0.1:25003' });
    assert.equal(
      nodeInetrc(2, 3, 77),
      '{host, {127,77,2,1}, ["rabbit-node-1"]}.\n{host, {127,0,0,1}, ["rabbit-node-2"]}.\n{host, {127,77,2,3}, ["rabbit-node-3"]}.\n{lookup, [file, native]}.\n',
    );
    // One entry per address: a second one for 127.0.0.1 would replace the first one's names.
    assert.equal(cliInetrc(3), '{host, {127,0,0,1}, ["rabbit-node-1", "rabbit-node-2", "rabbit-node-3"]}.\n{lookup, [file, native]}.\n');
    assert.deepEqual(peerLinks(proxies, 'http://t')[0]!.peer, { from: 'node-1', to: 'node-2', traffic: 'distribution' });
    // The node's files: its distribution listener on 127.0.0.1 and the real port in the
    // configuration, a spare port for RabbitMQ's start-up check, its host table.
    const l = nodeLayout('/tmp/x', 5672, 25672, { host: 'rabbit-node-2', checkPort: 30000 });
    assert.equal(l.nodeName, 'convoy-5672@rabbit-node-2');
    const conf = nodeConfig(l, ['a', 'b', 'c']);
    assert.match(conf, /^distribution\.listener\.interface = 127\.0\.0\.1$/m);
    assert.match(conf, /^distribution\.listener\.port_range\.min = 25672$/m);
    assert.match(conf, /^cluster_partition_handling = pause_minority$/m);
    assert.equal(nodeEnv(l).RABBITMQ_DIST_PORT, '30000');
    assert.equal(nodeEnv(l).ERL_INETRC, '/tmp/x/inetrc');
    assert.doesNotMatch(nodeConfig(nodeLayout('/tmp/x', 5672, 25672), ['a', 'b']), /distribution\.listener|pause_minority/);
    assert.equal(rabbitmq.capabilities!(resolveSettings({ kind: 'rabbitmq', nodes: 3, peerLinks: 'proxied' }), 'local').isolate, true);
    assert.match(String(rabbitmq.capabilities!(resolveSettings({ kind: 'rabbitmq', nodes: 3 }), 'local').isolate), /peerLinks: proxied/);
  });
});

describe('a quorum queue\'s members, as rabbitmq-queues quorum_status prints them', () => {
  it('names the leader and each member\'s state; other output is an error, not a throw', () => {
    const printed = JSON.stringify([
      { 'Node Name': 'convoy-1@localhost', 'Raft State': 'leader', 'Log Index': 10 },
      { 'Node Name': 'convoy-2@localhost', 'Raft State': 'follower', 'Log Index': 10 },
    ]);
    assert.deepEqual(parseQuorumStatus('q', printed), { queue: 'q', leader: 'convoy-1@localhost', members: [{ node: 'convoy-1@localhost', state: 'leader' }, { node: 'convoy-2@localhost', state: 'follower' }] });
    assert.deepEqual(parseQuorumStatus('q', '[]'), { queue: 'q', members: [] });
    assert.match(parseQuorumStatus('q', 'Error: nodedown').error!, /rabbitmq-queues said: Error: nodedown/);
  });
  it('as lanes for the isolate fault: node numbers, and only the members that answer as in sync', () => {
    const nodes = ['n1@a', 'n2@b', 'n3@c'];
    const status = { queue: 'q', leader: 'n2@b', members: [{ node: 'n1@a', state: 'follower' }, { node: 'n2@b', state: 'leader' }, { node: 'n3@c', state: 'timeout' }] };
    assert.deepEqual(quorumLanes([status, { queue: 'r', error: 'no node answered' }], nodes), { q: { leader: 2, replicas: [1, 2, 3], isr: [1, 2] } });
    assert.deepEqual(quorumLanes([{ queue: 'q', members: [{ node: 'n1@a', state: 'candidate' }] }], nodes), { q: { leader: -1, replicas: [1], isr: [] } });
  });
});
