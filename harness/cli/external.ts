import { InputError } from '../errors.ts';

/**
 * `--external k=v ...` into a nested object: `sasl.username=u` → { sasl: { username: 'u' } }.
 * Values "true"/"false" and numbers are typed; the broker module reads what it knows.
 */
export function parseExternal(pairs: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new InputError(`--external: expected key=value, got "${pair}"`);
    const path = pair.slice(0, eq).split('.');
    const raw = pair.slice(eq + 1);
    const value: unknown = raw === 'true' ? true : raw === 'false' ? false : raw !== '' && !Number.isNaN(Number(raw)) ? Number(raw) : raw;
    let node = out;
    for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[path[path.length - 1]] = value;
  }
  return out;
}
