/** brokerModule: a broker's parts get its own settings and endpoint types, and the run's runtime picks the deploy. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import type { BrokerSettings, DeployContext, Deployment, RuntimeKind } from '../../harness/broker/contract.ts';
import { brokerModule } from '../../harness/broker/module.ts';
import { brokerNames, loadBroker } from '../../harness/broker/registry.ts';
import { InputError } from '../../harness/errors.ts';

interface ToySettings extends BrokerSettings {
  size: number;
}

const calls: string[] = [];
const toy = brokerModule({
  name: 'toy',
  title: 'Toy',
  settingsSchema: {},
  settings: (raw): ToySettings => ({ ...raw, size: typeof raw.size === 'number' ? raw.size : 3 }),
  deploy: Object.fromEntries(
    (['local', 'containers', 'external'] as const).map((r) => [
      r,
      async (_ctx: DeployContext, s: ToySettings): Promise<Deployment> => {
        calls.push(`${r}:${s.size}`);
        return { broker: 'toy', runtime: r, endpoint: { url: `toy://${r}` }, versions: {}, links: [], nodes: [], logFiles: [], stop: async () => {} };
      },
    ]),
  ) as Record<RuntimeKind, (ctx: DeployContext, s: ToySettings) => Promise<Deployment>>,
  containerServices: (s) => [{ name: `toy-${s.size}`, image: 'toy', environment: {}, ports: [] }],
  endpoint: (e) => new URL(String(e.url)),
  admin: (e, s, names) => {
    calls.push(`admin:${e.protocol}:${s.size}:${names.runId}`);
    return { createDestinations: async () => {}, deleteDestinations: async () => {}, close: async () => {} };
  },
  producer: () => {
    throw new Error('not used');
  },
  consumer: () => {
    throw new Error('not used');
  },
});

test('brokerModule: deploy by runtime with resolved settings; clients get the parsed endpoint', async () => {
  const ctx = (runtime: RuntimeKind): DeployContext => ({ runtime, workDir: '/tmp', cacheDir: '/tmp', log: () => {} });
  await toy.deploy(ctx('containers'), { kind: 'toy' });
  await toy.deploy(ctx('external'), { kind: 'toy', size: 5 });
  await toy.deploy(ctx('local'), { kind: 'toy', size: 1 });
  await toy.admin({ url: 'toy://x' }, { kind: 'toy', size: 2 }, { runId: 'r1', prefix: 'convoy-r1' });
  assert.deepEqual(calls, ['containers:3', 'external:5', 'local:1', 'admin:toy::2:r1']);
  assert.deepEqual(toy.resolveSettings({ kind: 'toy' }), { kind: 'toy', size: 3 }, 'resolveSettings defaults to settings');
  assert.equal(toy.containerServices({ kind: 'toy' })[0].name, 'toy-3');
});

test('brokerModule: the runtimes a broker runs on are those its deploy names; another is refused as bad input', async () => {
  assert.deepEqual(toy.runtimes, ['local', 'containers', 'external']);
  const memory = await loadBroker('memory');
  assert.deepEqual(memory.runtimes, ['local']);
  await assert.rejects(memory.deploy({ runtime: 'external', workDir: '/tmp', cacheDir: '/tmp', log: () => {} }, { kind: 'memory' }), (e: Error) => e instanceof InputError && /memory broker runs only on the local runtime, not external/.test(e.message));
});

test('every broker module resolves its own default settings and describes its containers', async () => {
  const names = brokerNames();
  assert.ok(names.length >= 5, `brokers found: ${names.join(', ')}`);
  for (const name of names) {
    const mod = await loadBroker(name);
    assert.equal(mod.name, name);
    const s = mod.resolveSettings({ kind: name });
    assert.equal(s.kind, name, `${name}: resolved settings keep the kind`);
    // A test double lives in the runner's process: it has no containers to describe.
    if (mod.testDouble) assert.deepEqual(mod.containerServices(s), [], `${name}: container services`);
    else assert.ok(Array.isArray(mod.containerServices(s)) && mod.containerServices(s).length > 0, `${name}: container services`);
  }
});

test('the test runner\'s first phase: a real broker loaded through the registry refuses to start, naming the missing @needs line; the memory broker starts', async () => {
  const before = process.env.CONVOY_NO_BROKERS;
  process.env.CONVOY_NO_BROKERS = '1';
  try {
    const sqs = await loadBroker('sqs');
    await assert.rejects(sqs.deploy({ runtime: 'local', workDir: tmpdir(), cacheDir: '', log: () => {} }, sqs.resolveSettings({ kind: 'sqs' })), /^Error: a test file with no "\/\/ @needs" line started a sqs broker: give it one \(bin\/test-plan\.js\)$/);
    const memory = await loadBroker('memory');
    const dep = await memory.deploy({ runtime: 'local', workDir: tmpdir(), cacheDir: '', log: () => {} }, memory.resolveSettings({ kind: 'memory' }));
    await dep.stop();
  } finally {
    if (before === undefined) delete process.env.CONVOY_NO_BROKERS;
    else process.env.CONVOY_NO_BROKERS = before;
  }
});
