import { ToxiproxyApi, type ToxicSpec } from '../net/toxiproxy.ts';
import type { FaultContext, FaultKind, StartedFault } from './contract.ts';
import type { FaultSpec } from '../spec/types.ts';
import { suggest } from '../suggest.ts';

/**
 * Network faults through Toxiproxy on one of the deployment's links (`clients` by default,
 * or `node-2` for one broker of a cluster). `toxic: down` disables the proxies (a cut link);
 * any other toxic is added with its attributes, direction and toxicity.
 */
const TOXICS = ['latency', 'bandwidth', 'timeout', 'reset_peer', 'slicer', 'limit_data', 'slow_close', 'down'] as const;

/**
 * Each toxic's attributes (Toxiproxy's names and units), and the one without which it does
 * nothing (Toxiproxy takes a missing attribute as 0: a latency toxic of 0 ms).
 */
const ATTRIBUTES: Record<(typeof TOXICS)[number], { known: Record<string, string>; needed?: string }> = {
  latency: { known: { latency: 'ms', jitter: 'ms' }, needed: 'latency' },
  bandwidth: { known: { rate: 'KB/s' }, needed: 'rate' },
  timeout: { known: { timeout: 'ms; 0: never, the data is held until the fault ends' } },
  reset_peer: { known: { timeout: 'ms before the reset' } },
  slicer: { known: { average_size: 'bytes', size_variation: 'bytes', delay: 'µs between slices' }, needed: 'average_size' },
  limit_data: { known: { bytes: 'bytes before the connection closes' }, needed: 'bytes' },
  slow_close: { known: { delay: 'ms' }, needed: 'delay' },
  down: { known: {} },
};

/** Problems with a toxic's attributes: names it does not take (with a suggestion), the one it needs. */
function attributeProblems(spec: FaultSpec, path: string): string[] {
  const toxic = spec.toxic as (typeof TOXICS)[number];
  const table = ATTRIBUTES[toxic];
  if (!table) return [];
  const given = (spec.attributes as Record<string, unknown> | undefined) ?? {};
  const names = Object.keys(table.known);
  const problems: string[] = [];
  for (const k of Object.keys(given)) {
    if (names.includes(k)) continue;
    const near = suggest(k, names);
    const takes = names.length ? `a ${toxic} toxic takes ${names.map((n) => `${n} (${table.known[n]})`).join(', ')}` : `a ${toxic} fault takes no attributes`;
    problems.push(`${path}.attributes.${k}: ${takes}${near ? ` (did you mean ${near}?)` : ''}`);
  }
  if (table.needed && given[table.needed] === undefined) {
    problems.push(`${path}.attributes: a ${toxic} toxic needs ${table.needed} (${table.known[table.needed]}); without it it does nothing`);
  }
  return problems;
}

const network: FaultKind = {
  kind: 'network',
  destructive: false,
  schema: {
    type: 'object',
    properties: {
      link: { type: 'string', description: 'Link name from the deployment: clients (default), node-1, node-2, ...' },
      toxic: { enum: [...TOXICS], description: 'A Toxiproxy toxic; down disables the link\'s proxies (a cut link).' },
      direction: { enum: ['upstream', 'downstream', 'both'], description: 'upstream: client to broker. Default both.' },
      toxicity: { type: 'number', minimum: 0, maximum: 1, description: 'The share of connections it acts on (default 1).' },
      attributes: {
        type: 'object',
        additionalProperties: { type: 'number' },
        description: `The toxic's attributes, Toxiproxy's names: ${TOXICS.filter((t) => Object.keys(ATTRIBUTES[t].known).length).map((t) => `${t}: ${Object.entries(ATTRIBUTES[t].known).map(([k, u]) => `${k} (${u})`).join(', ')}`).join('; ')}.`,
      },
    },
    required: ['toxic'],
  },
  doc: {
    summary: 'A Toxiproxy toxic on one of the deployment\'s links for the window: latency, bandwidth, a held or reset connection, sliced or cut data, or the link down.',
    needs: 'Links through Toxiproxy (`clients`; Kafka also one per node, `node-1` ...): every broker but the memory broker, except Kafka on the external runtime and Service Bus off the local runtime.',
    example: '{ name: slow-link, kind: network, toxic: latency, attributes: { latency: 200 }, atMs: 3s, durationMs: 5s }',
    exampleIn: 'broker: { kind: kafka }',
  },
  check(spec, scope) {
    const attrs = attributeProblems(spec, scope.path);
    const links = scope.capabilities?.links;
    if (!links) return attrs;
    const link = (spec.link as string | undefined) ?? 'clients';
    const where = spec.link === undefined ? scope.path : `${scope.path}.link`;
    if (links.length === 0) return [...attrs, `${where}: ${scope.broker} on the ${scope.runtime} runtime has no Toxiproxy links, so no network faults`];
    return links.includes(link) ? attrs : [...attrs, `${where}: no link ${JSON.stringify(link)} in this deployment; expected one of ${links.join(', ')}`];
  },
  async start(spec: FaultSpec, ctx: FaultContext): Promise<StartedFault> {
    const linkName = (spec.link as string | undefined) ?? 'clients';
    const link = ctx.deployment.links.find((l) => l.name === linkName);
    if (!link) throw new Error(`network fault ${spec.name}: no link "${linkName}" (have ${ctx.deployment.links.map((l) => l.name).join(', ')})`);
    const api = new ToxiproxyApi(link.toxiproxyUrl);
    const toxic = spec.toxic as (typeof TOXICS)[number];
    const direction = (spec.direction as string | undefined) ?? 'both';
    const streams: ToxicSpec['stream'][] = direction === 'both' ? ['upstream', 'downstream'] : [direction as ToxicSpec['stream']];
    const added: { proxy: string; name: string }[] = [];
    if (toxic === 'down') {
      for (const p of link.proxies) await api.setEnabled(p, false);
    } else {
      for (const p of link.proxies) {
        for (const stream of streams) {
          const name = `${spec.name}-${stream}`;
          await api.addToxic(p, {
            type: toxic,
            name,
            stream,
            toxicity: spec.toxicity as number | undefined,
            attributes: (spec.attributes as Record<string, number> | undefined) ?? {},
          });
          added.push({ proxy: p, name });
        }
      }
    }
    const evidence = await Promise.all(link.proxies.map((p) => api.describe(p)));
    let ended = false;
    return {
      evidence: { link: linkName, proxies: evidence },
      async end() {
        if (ended) return undefined;
        ended = true;
        if (toxic === 'down') for (const p of link.proxies) await api.setEnabled(p, true);
        for (const a of added) await api.removeToxic(a.proxy, a.name);
        return { proxies: await Promise.all(link.proxies.map((p) => api.describe(p))) };
      },
    };
  },
};
export default network;
