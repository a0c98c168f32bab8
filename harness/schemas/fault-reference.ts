/**
 * The fault reference in docs/faults.md, generated from each fault kind's own file
 * (harness/faults/<kind>.ts: its schema's fields and descriptions, and its `doc`), between two
 * markers in that page; the rest of the page is written by hand. `node --import tsx
 * harness/schemas/publish.ts` rewrites it with the schemas; test/docs/faults.test.ts checks it is
 * current, so a new fault kind cannot go undocumented.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FaultKind } from '../faults/contract.ts';
import { faultKinds } from '../faults/registry.ts';
import { scenarioSchema } from '../scenario/schema.ts';

export const FAULT_REFERENCE_FILE = 'docs/faults.md';
export const BEGIN = '<!-- fault reference: generated from harness/faults/*.ts by harness/schemas/publish.ts; edit the fault kinds, not this section -->';
export const END = '<!-- end of the fault reference -->';

type Prop = { $ref?: string; description?: string; type?: string; enum?: unknown[]; anyOf?: Prop[]; items?: Prop; properties?: Record<string, Prop>; minimum?: number; maximum?: number };

/** A field's values, briefly: `integer ≥ 2`, `now \| after-apply`, `list of string`. */
function valuesOf(p: Prop): string {
  if (p.$ref) return p.$ref.split('/').pop()!;
  if (p.enum) return p.enum.map(String).join(' \\| ');
  if (p.anyOf) return p.anyOf.map(valuesOf).join(' or ');
  if (p.type === 'array') return `list of ${p.items ? valuesOf(p.items) : 'values'}`;
  if (p.type === 'object') return p.properties ? `{ ${Object.keys(p.properties).join(', ')} }` : 'mapping';
  const range = p.minimum !== undefined && p.maximum !== undefined ? ` ${p.minimum}..${p.maximum}` : p.minimum !== undefined ? ` ≥ ${p.minimum}` : '';
  return `${p.type ?? 'value'}${range}`;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** One table row per field, a nested object's fields as `position.every`. */
function rows(props: Record<string, Prop>, required: string[], prefix = ''): string[] {
  return Object.entries(props).flatMap(([name, p]) => [
    `| \`${prefix}${name}\` | ${valuesOf(p)} | ${required.includes(name) ? 'yes' : ''} | ${cell(p.description ?? '')} |`,
    ...(p.type === 'object' && p.properties ? rows(p.properties, [], `${prefix}${name}.`) : []),
  ]);
}

/** Every field of every fault kind without a description (the reference would say nothing of it). */
export function undocumentedFields(kinds: ReadonlyMap<string, Pick<FaultKind, 'schema'>>): string[] {
  const walk = (props: Record<string, Prop>, at: string): string[] =>
    Object.entries(props).flatMap(([name, p]) => [...(p.description ? [] : [`${at}.${name}`]), ...(p.properties ? walk(p.properties, `${at}.${name}`) : [])]);
  return [...kinds].flatMap(([kind, k]) => walk(((k.schema as { properties?: Record<string, Prop> }).properties ?? {}), kind));
}

/** The generated section: the fields every fault has, then each kind. */
export function faultReference(kinds: ReadonlyMap<string, FaultKind>): string {
  const fault = scenarioSchema.$defs.fault as unknown as { properties: Record<string, Prop>; required?: string[] };
  const out = [
    BEGIN,
    '',
    '## Fields of every fault',
    '',
    '| field | values | required | meaning |',
    '|---|---|---|---|',
    ...rows(fault.properties, fault.required ?? []),
    '',
    `Kinds: ${[...kinds.keys()].map((k) => `[\`${k}\`](#${k})`).join(', ')}.`,
  ];
  for (const [name, k] of kinds) {
    const schema = k.schema as { properties?: Record<string, Prop>; required?: string[] };
    const props = schema.properties ?? {};
    out.push('', `### ${name}`, '', k.doc.summary, '');
    if (Object.keys(props).length) out.push('| field | values | required | meaning |', '|---|---|---|---|', ...rows(props, schema.required ?? []), '');
    else out.push('No fields of its own.', '');
    if (k.doc.needs) out.push(`**Needs:** ${k.doc.needs}`, '');
    if (k.destructive) out.push('**Destructive:** it changes or hurts the broker; refused on the external runtime without `--allow-destructive`.', '');
    if (k.doc.notes) out.push(`**Note:** ${k.doc.notes}`, '');
    out.push(`Example: \`${k.doc.example}\``);
  }
  out.push('', END);
  return out.join('\n');
}

/** The page with its generated section replaced (the markers must be there). */
export function withFaultReference(page: string, section: string): string {
  const from = page.indexOf(BEGIN);
  const to = page.indexOf(END);
  if (from < 0 || to < from) throw new Error(`${FAULT_REFERENCE_FILE}: the fault reference's markers are missing`);
  return page.slice(0, from) + section + page.slice(to + END.length);
}

const root = (p: string) => fileURLToPath(new URL(`../../${p}`, import.meta.url));

/** The page as it should be: the committed one with a fresh reference. */
export async function currentFaultsPage(): Promise<{ committed: string; current: string }> {
  const committed = readFileSync(root(FAULT_REFERENCE_FILE), 'utf8');
  return { committed, current: withFaultReference(committed, faultReference(await faultKinds())) };
}

export async function writeFaultReference(): Promise<void> {
  const { current } = await currentFaultsPage();
  writeFileSync(root(FAULT_REFERENCE_FILE), current);
}
