import { InputError } from '../errors.ts';

/**
 * A repeatable option's values, one per flag (`--external a=1 --external b=2`): a variadic
 * option would take the scenario file after it as one more value.
 */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export const EXTERNAL_HELP = 'external runtime: one connection setting per flag (repeat it), e.g. --external bootstrap=host:9092 --external sasl.mechanism=plain; also url=amqps://..., sasl.username=u, sasl.password=p, ssl=true';

/**
 * `--external k=v`, repeated, into a nested object: `sasl.username=u` → { sasl: { username: 'u' } }.
 * "true" and "false" become booleans; every other value stays text (a user name or project id
 * of digits is still a name); the broker module reads what it knows.
 */
export function parseExternal(pairs: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new InputError(`--external: expected key=value, got "${pair}"`);
    const path = pair.slice(0, eq).split('.');
    const raw = pair.slice(eq + 1);
    const value: unknown = raw === 'true' ? true : raw === 'false' ? false : raw;
    let node = out;
    for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[path[path.length - 1]] = value;
  }
  return out;
}
