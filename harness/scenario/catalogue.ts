/**
 * What the loader checks a scenario against, handed in by its caller (the CLI builds it from
 * brokers/, harness/faults/, the consumer's strategies and modes and the order service's modes:
 * harness/cli/catalogue.ts).
 * The loader keeps no registry of its own: a test hands in a fake broker and two fault kinds,
 * the CLI the real ones. Each plug-in contributes its schema fragment here.
 */
import type { Scenario } from '../spec/types.ts';
import type { BrokerCapabilities, BrokerSettings, ExternalSetting, RuntimeKind, ServiceLink } from '../broker/contract.ts';
import type { FaultKind } from '../faults/contract.ts';
import type { SchemaObject } from './values.ts';

/** What the loader needs of a broker module. */
export interface BrokerSchemaModule {
  /** JSON Schema of the `broker:` section (its `kind` is added when the schema leaves it out). */
  settingsSchema: SchemaObject;
  /** The runtimes it can be deployed on (default every one): another is refused at `broker.kind`. */
  runtimes?: readonly RuntimeKind[];
  /** See BrokerModule.externalSettings: its scenario fields are ignored, with a warning, on the local runtime. */
  externalSettings?: readonly ExternalSetting[];
  resolveSettings?(settings: BrokerSettings): BrokerSettings;
  /** What the broker can do with resolved settings on a runtime; faults are checked against it. */
  capabilities?(settings: BrokerSettings, runtime: RuntimeKind): BrokerCapabilities;
  /** See BrokerModule.redeliveryHorizonMs: the default drain's length. */
  redeliveryHorizonMs?(settings: BrokerSettings): number;
  redeliveryHorizonSetting?(settings: BrokerSettings): string;
  /** See BrokerModule.consumerNames: a name beyond consumers.processes is refused. */
  consumerNames?(settings: BrokerSettings): { path: string; names: string[] }[];
  /** See BrokerModule.service: a consumer under test is refused on a broker without it. */
  service?: Pick<ServiceLink, 'variables'>;
}

/**
 * A fault kind as the loader sees it: the JSON Schema of its own fields (besides name, kind,
 * atMs, durationMs; a field may use durationSchema from schema.ts and is then converted to ms),
 * and optionally the checks and warnings against the scenario and the broker (static-check.ts).
 */
export type CatalogueFaultKind = Pick<FaultKind, 'schema'> & Partial<Pick<FaultKind, 'destructive' | 'check' | 'warn' | 'worker' | 'underTest'>>;

/**
 * A consumer strategy or concurrency mode: its name is a value of `consumers.strategy` /
 * `consumers.concurrency.mode`. `description` goes into the published schema. (Option schemas
 * of strategies and modes plug in here too: see schema.ts, scenarioSchemaFor.)
 */
export interface CatalogueChoice {
  description?: string;
  /** JSON Schema of the plug-in's own options, when it has any (see scenarioSchemaFor). */
  optionsSchema?: SchemaObject;
  /** A strategy: why it does not fit the workload's entity (cross-checks.ts), or undefined. */
  unfit?(entity: Scenario['workload']['entity']): string | undefined;
}

/** An order-service mode (`workload.gateway.mode`) as the loader sees it (harness/gateway/modes/). */
export interface CatalogueGatewayMode {
  /** The instances only write an outbox; relay processes, one per lane, publish it. */
  relay?: boolean;
  /** Why the broker cannot serve this mode with its capabilities and the scenario's relays, or undefined. */
  unservable?(capabilities: BrokerCapabilities | undefined, broker: string, relays: number | undefined): string | undefined;
}

export interface ScenarioCatalogue {
  brokers: {
    /** The installed broker kinds, for `broker.kind: expected one of ...`. */
    names(): string[];
    /** The module of an installed kind; undefined leaves the broker section unchecked (a warning says so). */
    load(kind: string): Promise<BrokerSchemaModule | undefined>;
  };
  faults: ReadonlyMap<string, CatalogueFaultKind>;
  strategies: ReadonlyMap<string, CatalogueChoice>;
  modes: ReadonlyMap<string, CatalogueChoice>;
  /** The order service's modes, by name. */
  gatewayModes: ReadonlyMap<string, CatalogueGatewayMode>;
}
