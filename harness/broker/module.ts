/**
 * Builds a BrokerModule from a broker's own parts. The harness hands a module settings and
 * endpoints as plain JSON (from the scenario and the deployment record); this reads them once,
 * with the broker's `settings` and `endpoint`, so every part takes the broker's own types, and
 * picks the deploy of the run's runtime. A broker's index.ts is then a list of its parts.
 */
import type { Need } from '../runtime/requirements.ts';
import { InputError } from '../errors.ts';
import { RUNTIME_KINDS } from './contract.ts';
import type {
  ServiceLink,
  BrokerAdmin, BrokerCapabilities, BrokerDefinition, CachedItem, BrokerSettings, ConsumerClient, ConsumerOptions, ContainerService, DeployContext, Deployment,
  Endpoint, ExternalSetting, ProducerClient, ProducerOptions, RunNames, RuntimeKind,
} from './contract.ts';

export interface BrokerParts<S extends BrokerSettings, E> {
  name: string;
  title: string;
  testDouble?: boolean;
  settingsSchema: Record<string, unknown>;
  /** See BrokerModule.externalSettings. */
  externalSettings?: readonly ExternalSetting[];
  /** See BrokerModule.checkExternal (the settings as the broker's own type). */
  checkExternal?(external: Record<string, unknown>, settings?: S): void | Promise<void>;
  /** Resolves raw settings (defaults filled in); must accept resolved ones too. */
  settings(raw: BrokerSettings): S;
  /** What the result records as the resolved settings (default: `settings`). */
  resolveSettings?(raw: BrokerSettings): BrokerSettings;
  /** See BrokerModule. */
  requirements?: Need[];
  provision?(log: (line: string) => void): Promise<void>;
  cached?(): CachedItem[];
  /** One deploy per runtime it runs on; a runtime left out is refused when the scenario is checked (`runtimes`). */
  deploy: Partial<Record<RuntimeKind, (ctx: DeployContext, settings: S) => Promise<Deployment>>>;
  containerServices(settings: S): ContainerService[];
  /** What the broker can do with these settings on this runtime (checked before a run). */
  capabilities?(settings: S, runtime: RuntimeKind): BrokerCapabilities;
  /** Reads a deployment's endpoint (as JSON) into the broker's own form. */
  endpoint(e: Endpoint): E;
  admin(endpoint: E, settings: S, names: RunNames): BrokerAdmin | Promise<BrokerAdmin>;
  producer(endpoint: E, settings: S, names: RunNames, options: ProducerOptions): ProducerClient | Promise<ProducerClient>;
  consumer(endpoint: E, settings: S, names: RunNames, options: ConsumerOptions): ConsumerClient | Promise<ConsumerClient>;
  /** See BrokerModule.redeliveryHorizonMs. */
  redeliveryHorizonMs?(settings: S): number;
  /** See BrokerModule.redeliveryHorizonSetting. */
  redeliveryHorizonSetting?(settings: S): string;
  /** See BrokerModule.processClientVersions. */
  processClientVersions?(settings: S): Record<string, string>;
  /** See BrokerModule.service (raw settings and endpoint: it is passed through as it is). */
  service?: ServiceLink;
  /** See BrokerModule.clientInUse. */
  clientInUse?(settings: S): string;
  /** See BrokerModule.consumerNames. */
  consumerNames?(settings: S): { path: string; names: string[] }[];
}

const RUNTIMES: readonly RuntimeKind[] = RUNTIME_KINDS;

/** Why a broker cannot run on a runtime: one line (the scenario loader says it at `broker.kind`). */
export function runtimeRefused(broker: string, runtimes: readonly RuntimeKind[], runtime: RuntimeKind): string {
  return `the ${broker} broker runs only on the ${runtimes.join(' or ')} runtime, not ${runtime} (--runtime ${runtime})`;
}

export function brokerModule<S extends BrokerSettings, E>(parts: BrokerParts<S, E>): BrokerDefinition {
  const { settings, endpoint } = parts;
  return {
    name: parts.name,
    title: parts.title,
    testDouble: parts.testDouble,
    settingsSchema: parts.settingsSchema,
    externalSettings: parts.externalSettings,
    ...(parts.checkExternal ? { checkExternal: (external: Record<string, unknown>, raw?: BrokerSettings) => parts.checkExternal!(external, raw ? settings(raw) : undefined) } : {}),
    requirements: parts.requirements,
    provision: parts.provision,
    cached: parts.cached,
    resolveSettings: parts.resolveSettings ?? settings,
    runtimes: RUNTIMES.filter((r) => parts.deploy[r]),
    deploy: (ctx, raw) => {
      const deploy = parts.deploy[ctx.runtime];
      if (!deploy) return Promise.reject(new InputError(runtimeRefused(parts.name, RUNTIMES.filter((r) => parts.deploy[r]), ctx.runtime)));
      return deploy(ctx, settings(raw));
    },
    containerServices: (raw) => parts.containerServices(settings(raw)),
    capabilities: parts.capabilities ? (raw, runtime) => parts.capabilities!(settings(raw), runtime) : undefined,
    admin: async (e, raw, names) => parts.admin(endpoint(e), settings(raw), names),
    producer: async (e, raw, names, options) => parts.producer(endpoint(e), settings(raw), names, options),
    consumer: async (e, raw, names, options) => parts.consumer(endpoint(e), settings(raw), names, options),
    redeliveryHorizonMs: parts.redeliveryHorizonMs ? (raw) => parts.redeliveryHorizonMs!(settings(raw)) : undefined,
    redeliveryHorizonSetting: parts.redeliveryHorizonSetting ? (raw) => parts.redeliveryHorizonSetting!(settings(raw)) : undefined,
    processClientVersions: parts.processClientVersions ? (raw) => parts.processClientVersions!(settings(raw)) : undefined,
    clientInUse: parts.clientInUse ? (raw) => parts.clientInUse!(settings(raw)) : undefined,
    consumerNames: parts.consumerNames ? (raw) => parts.consumerNames!(settings(raw)) : undefined,
    service: parts.service,
  };
}
