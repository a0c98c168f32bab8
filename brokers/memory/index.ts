/**
 * The memory broker: a broker inside the runner process, for fast tests of the harness (the
 * runner, faults, concurrency modes, poison policies, the checker on real runs). Faithful to
 * the broker contract and tested against it beside the real brokers (test/conformance/); a
 * test double, never a broker a nightly scenario is judged on. See README.md.
 */
import { brokerModule } from '../../harness/broker/module.ts';
import { memoryAdmin } from './admin.ts';
import { MemoryConsumer, MemoryProducer } from './client.ts';
import { capabilities } from './capabilities.ts';
import { asEndpoint, deployLocal } from './deploy.ts';
import { resolveSettings, settingsSchema } from './settings.ts';

const memory = brokerModule({
  name: 'memory',
  title: 'Memory (test double)',
  testDouble: true,
  settingsSchema,
  settings: resolveSettings,
  requirements: [],
  capabilities,
  // A lost delivery comes back after the visibility timeout (queue) or the group's re-forming.
  redeliveryHorizonMs: (s) => (s.mode === 'queue' ? s.visibilityMs : s.rebalanceDelayMs),
  redeliveryHorizonSetting: (s) => (s.mode === 'queue' ? 'broker.visibilityMs' : 'broker.rebalanceDelayMs'),
  // In the runner process: the local runtime only (the scenario loader refuses the others).
  deploy: { local: deployLocal },
  containerServices: () => [],
  endpoint: asEndpoint,
  admin: memoryAdmin,
  producer: (endpoint, _settings, names, options) => new MemoryProducer(endpoint, names, options),
  consumer: (endpoint, _settings, names, options) => new MemoryConsumer(endpoint, names, options),
});

export default memory;
