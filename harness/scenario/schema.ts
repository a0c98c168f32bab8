/**
 * The scenario schema as validated and published: the spec's sections (harness/spec/sections.ts)
 * with each plug-in part filled in from its registry: the concurrency modes (`mode` and a mode's
 * own fields), the strategies (`consumers.strategy`, wrong-state's `strategy`) and the order
 * service's modes (`workload.gateway`). The published copy is harness/scenario/scenario.schema.json
 * (`node --import tsx harness/schemas/publish.ts` writes it; a test checks they match).
 * Plug-ins of a catalogue add their values through scenarioSchemaFor (below).
 */
import { fileURLToPath } from 'node:url';
import { concurrencySchema } from '../consumer/concurrency/registry.ts';
import { STRATEGIES, strategyFieldSchema, strategyNameSchema, type StrategySchemaPart } from '../consumer/strategies/schema.ts';
import { gatewaySchema } from '../gateway/registry.ts';
import { PLUGIN_COMMENT, specSchema, type PluginPart } from '../spec/sections.ts';

/** Each plug-in part's schema from the registries. */
function pluginParts(): Record<PluginPart, unknown> {
  const { mode } = concurrencySchema();
  return { 'concurrency-mode': mode, strategy: strategyFieldSchema(), 'strategy-name': strategyNameSchema(), gateway: gatewaySchema() };
}

/** The spec's schema with every `convoy:plugin:<part>` placeholder replaced by its part; a mode's own fields follow `mode`. */
function fillPlugins(spec: object): Record<string, unknown> {
  const parts = pluginParts();
  const s = structuredClone(spec) as any;
  const fill = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(fill);
    if (!node || typeof node !== 'object') return node;
    const comment = (node as { $comment?: unknown }).$comment;
    if (typeof comment === 'string' && comment.startsWith(PLUGIN_COMMENT)) {
      const part = comment.slice(PLUGIN_COMMENT.length) as PluginPart;
      if (!(part in parts)) throw new Error(`scenario schema: no plug-in fills ${comment}`);
      return structuredClone(parts[part]);
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, fill(v)]));
  };
  const filled = fill(s) as any;
  // The modes' own fields sit beside `mode`, in the modes' order.
  const { mode: _mode, ...own } = concurrencySchema();
  const props = filled.$defs.consumers.properties.concurrency.properties;
  const { mode, ...rest } = props;
  filled.$defs.consumers.properties.concurrency.properties = { mode, ...own, ...rest };
  return filled;
}

export const scenarioSchema = fillPlugins(specSchema) as typeof specSchema;

export const SCHEMA_FILE = fileURLToPath(new URL('./scenario.schema.json', import.meta.url));

/** The plug-ins a scenario schema is built with (ScenarioCatalogue has them). */
export interface SchemaPlugins {
  strategies: ReadonlyMap<string, { description?: string; optionsSchema?: Record<string, unknown> }>;
  modes: ReadonlyMap<string, { description?: string }>;
  /** The order service's modes; their names are `workload.gateway.mode`'s values. */
  gatewayModes?: ReadonlyMap<string, unknown>;
}

/**
 * The scenario schema with the given strategies, concurrency modes and order-service modes as
 * the allowed values (each strategy's and mode's description beside its name). With none given,
 * the built-in lists stay.
 */
export function scenarioSchemaFor(plugins: SchemaPlugins): Record<string, unknown> {
  const s = structuredClone(scenarioSchema) as any;
  const choose = (at: Record<string, unknown>, choices: SchemaPlugins['strategies']) => {
    if (choices.size === 0) return;
    at.enum = [...choices.keys()];
    const said = [...choices].filter(([, c]) => c.description).map(([n, c]) => `${n}: ${c.description}`);
    if (said.length) at.description = `${said.join('; ')}. Default ${String(at.default)}.`;
  };
  if (plugins.strategies.size > 0) {
    // Each strategy brings its options: the one of this process's files under that name, else
    // the catalogue's own description and options schema.
    const chosen = new Map(
      [...plugins.strategies].map(([name, p]) => {
        const known = STRATEGIES.get(name);
        const options = (p.optionsSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
        const part: StrategySchemaPart = known ?? { name, description: p.description ?? name, options: options as StrategySchemaPart['options'] };
        return [name, part];
      }),
    );
    s.$defs.consumers.properties.strategy = strategyFieldSchema(chosen);
    s.$defs.stateExpectation.oneOf[1].properties.strategy = strategyNameSchema(chosen);
  }
  choose(s.$defs.consumers.properties.concurrency.properties.mode, plugins.modes);
  if (plugins.gatewayModes?.size) s.$defs.workload.properties.gateway.properties.mode.enum = [...plugins.gatewayModes.keys()];
  return s;
}
