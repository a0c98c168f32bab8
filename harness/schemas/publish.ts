/**
 * The published JSON Schemas, generated from their one source each (TypeBox: the scenario's in
 * harness/scenario/schema.ts, completed with the brokers' and fault kinds' own schemas; the
 * result's, the history's). Every `$id` follows one
 * convention: https://convoy.dev/schema/<shape>.v<major>.json. `node --import tsx
 * harness/schemas/publish.ts` writes them (and the fault reference in docs/faults.md, fault-reference.ts);
 * test/schemas/published.test.ts checks they are current.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export { SCHEMA_ID_BASE, schemaId } from '../schema-id.ts';

export interface Published {
  /** Repository path of the published copy. */
  path: string;
  /** The module it is generated from. */
  source: string;
  /** The schema, as generated from its source, with a `$comment` saying so. */
  schema(): Promise<unknown>;
}

/** A generated schema says so, and where it comes from, right after its `$id`. */
function generated(source: string, schema: object): object {
  const { $schema, $id, ...rest } = schema as Record<string, unknown>;
  return { $schema, $id, $comment: `Generated from ${source} by harness/schemas/publish.ts: edit the source, not this file.`, ...rest };
}

const root = (p: string) => fileURLToPath(new URL(`../../${p}`, import.meta.url));

function published(path: string, source: string, load: () => Promise<object>): Published {
  return { path, source, schema: async () => generated(source, await load()) };
}

/**
 * The scenario schema for editors: the loader's, completed with every broker's settings and
 * every fault kind's fields from their own schemas (scenario/complete-schema.ts).
 */
async function publishedScenarioSchema(): Promise<object> {
  const [{ completeScenarioSchema }, { brokerNames, brokerSettingsSchema }, { faultKinds }] = await Promise.all([
    import('../scenario/complete-schema.ts'),
    import('../broker/registry.ts'),
    import('../faults/registry.ts'),
  ]);
  const brokers = new Map(await Promise.all(brokerNames().map(async (kind) => [kind, await brokerSettingsSchema(kind)] as const)));
  return completeScenarioSchema({ brokers, faults: await faultKinds() });
}

/** Every published schema; the sources are imported lazily (the scenario's needs no plug-ins). */
export const PUBLISHED: Published[] = [
  published('harness/scenario/scenario.schema.json', 'harness/scenario/schema.ts', publishedScenarioSchema),
  published('results/schema/result.v1.json', 'harness/checker/result-schema.ts', async () => (await import('../checker/result-schema.ts')).resultSchema),
  published('results/schema/history.v2.json', 'harness/history/schema.ts', async () => (await import('../history/schema.ts')).historySchema),
  published('results/schema/service-report.v1.json', 'harness/service/report.ts', async () => (await import('../service/report.ts')).serviceReportSchema),
  published('results/schema/client-protocol.v1.json', 'harness/client-protocol/messages.ts', async () => (await import('../client-protocol/messages.ts')).clientProtocolSchema),
  published('results/schema/agent-protocol.v2.json', 'harness/agent/messages.ts', async () => (await import('../agent/messages.ts')).agentProtocolSchema),
  published('results/schema/worker-protocol.v1.json', 'harness/workers/messages.ts', async () => (await import('../workers/messages.ts')).workerProtocolSchema),
];

/** A published file's text: 2-space JSON, one trailing newline. */
export function schemaText(schema: unknown): string {
  return JSON.stringify(schema, null, 2) + '\n';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const p of PUBLISHED) {
    writeFileSync(root(p.path), schemaText(await p.schema()));
    process.stdout.write(`wrote ${p.path}\n`);
  }
  // The fault reference is made from the same fault kinds' schemas.
  const { writeFaultReference, FAULT_REFERENCE_FILE } = await import('./fault-reference.ts');
  await writeFaultReference();
  process.stdout.write(`wrote ${FAULT_REFERENCE_FILE} (its generated section)\n`);
}
