import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { composeForAllBrokers, renderCompose } from '../../harness/broker/compose.ts';
import { ROOT } from '../runner/helpers.ts';
import { brokerNames, loadBroker } from '../../harness/broker/registry.ts';

test('docker-compose.yml is what `convoy compose` generates from the brokers (regenerate it after a topology change)', async () => {
  assert.equal(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), await composeForAllBrokers());
});

test('every broker of the compose file sits behind its own Toxiproxy, and host ports never collide', async () => {
  const doc = parse(await composeForAllBrokers()) as { services: Record<string, { image: string; ports?: string[] }> };
  const names = Object.keys(doc.services);
  // Every broker that promises network links on the containers runtime has its Toxiproxy there.
  const proxied: string[] = [];
  for (const name of brokerNames()) {
    const mod = await loadBroker(name);
    const links = mod.capabilities?.(mod.resolveSettings({ kind: name }), 'containers').links ?? [];
    if (links.length === 0) continue;
    proxied.push(name);
    assert.ok(names.some((n) => n.startsWith(name) && doc.services[n].image.includes('toxiproxy')), `${name} has no toxiproxy service`);
  }
  assert.ok(proxied.length >= 4, `only ${proxied.join(', ')} have links on containers`);
  const hostPorts = Object.values(doc.services).flatMap((s) => (s.ports ?? []).map((p) => p.split(':')[1]));
  assert.equal(new Set(hostPorts).size, hostPorts.length, `host ports collide: ${hostPorts.join(', ')}`);
  assert.ok(hostPorts.every((p) => Number(p) > 1024));
});

test('renderCompose refuses two services with one name', () => {
  const svc = { name: 'x', image: 'img', ports: [] };
  assert.throws(() => renderCompose([svc, svc]), /two container services are named "x"/);
});
