/**
 * The scenario's types, derived from its one source, the TypeBox schema in schema.ts: each is
 * `Resolved<>` of a section (schema-kit.ts), the shape the runner sees after validation and
 * defaults (harness/scenario/load.ts): every defaulted field present, durations in milliseconds.
 * The YAML under workloads/ is `ScenarioInput` (`Static<>` of the same schema: defaulted fields
 * optional, durations also strings like "30s", "250ms", "2m"); the published JSON Schema is
 * harness/scenario/scenario.schema.json. Nothing here restates a shape.
 *
 * Plug-in-owned parts stay open: the broker section and a fault carry their module's fields,
 * `consumers.concurrency` its mode's, and `consumers.strategy` a strategy's options.
 */
import type { Static } from '@sinclair/typebox';
import { Sections, type ExpectationValue, type ScenarioFile } from './sections.ts';
import type { Resolved } from './schema-kit.ts';

type S = typeof Sections;

export type Distribution = Resolved<S['Distribution']>;
export type RateSpec = Resolved<S['Rate']>;
export type SizeSpec = Resolved<S['Size']>;
export type TimeDistribution = Resolved<S['Time']>;
export type WorkloadSpec = Resolved<S['Workload']>;
export type ProducerSpec = Resolved<S['Producer']>;
export type ResendSpec = Resolved<S['Resend']>;
export type PoisonSpec = Resolved<S['Poison']>;
export type ConsumerSpec = Resolved<S['Consumers']>;
/** Where the consumers' entity store is, as the runner tells each consumer: a SQLite file, or a PostgreSQL database's URL. */
export type StoreSetting = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };
/** A team's own consumer under test (consumers.service). */
export type ServiceSpec = Resolved<S['Service']>;
/** A fault: name, kind, atMs, durationMs, and its kind's own fields (target consumer, link...). */
export type FaultSpec = Resolved<S['Fault']>;

/** `lost: 0`, `reorder: ">0"`, or `{ expect: ">0", during: "stall-c1" }` (wrong-state: `{ expect: 0, strategy: state-machine }`). */
export type ExpectationSpec = ExpectationValue;

/** A scenario, resolved: what the runner sees (`extends:` is resolved away). */
export type Scenario = Omit<Resolved<typeof ScenarioFile>, 'extends'>;

/** A scenario file as written (before `extends:`, defaults and durations). */
export type ScenarioInput = Static<typeof ScenarioFile>;
