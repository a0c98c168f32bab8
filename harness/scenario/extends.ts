/**
 * `extends: <file>`: a scenario stated as the differences from another (a control twin from the
 * scenario it controls). The parent is read (relative to the child's folder; it may extend
 * another in turn), then the child is merged over it by these rules:
 *
 * 1. Mappings merge key by key, recursively; a scalar or a list replaces the parent's value.
 * 2. `key: null` removes the parent's key (the default applies again).
 * 3. A mapping with another `kind` than the parent's replaces it whole (another kind has other
 *    fields: a `distribution: { kind: uniform }` does not keep a zipf's `s`).
 * 4. Each expectation under `expect` replaces the parent's whole (`reorder: 0` does not keep the
 *    parent's `during:`).
 * 5. Lists of named items, `faults` and `workload.producers`, merge by `name`: an item with the
 *    name of a parent's item is merged into it (rules 1-4, in the parent's place), one with a
 *    new name is appended, and `{ name: x, remove: true }` removes the parent's item x.
 *
 * The merge carries the origins along (yaml-source.ts), so a problem in an inherited value is
 * reported at its line in the parent file.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { InputError } from '../errors.ts';
import { parseYamlSource, positionOf, type Origin, type YamlSource } from './yaml-source.ts';
import { isObject, show } from './values.ts';

/** Lists whose items merge by name (rule 5). */
export const NAMED_LISTS = ['faults', 'workload.producers'];
/** Mappings whose entries replace the parent's whole (rule 4). */
export const REPLACED_ENTRIES = ['expect'];

/** A scenario's text as read from one file. */
export interface SourceFile {
  path: string;
  text: string;
}

/** A scenario with its parents merged in: the data, its origins, the files it came from (the file first). */
export interface ResolvedSource extends YamlSource {
  files: SourceFile[];
}

type Read = (path: string) => Promise<string>;

const readText: Read = (path) => readFile(path, 'utf8');

/** Parses `text` (the scenario file `file`) and merges in what it extends, transitively. */
export async function resolveExtends(text: string, file: string, read: Read = readText, seen: string[] = []): Promise<ResolvedSource> {
  const own = parseYamlSource(text, file);
  const files: SourceFile[] = [{ path: file, text }];
  const ref = own.data.extends;
  if (ref === undefined) return { ...own, files };
  const at = positionOf(own.origin, 'extends');
  const where = `${at.file}:${at.line}:${at.col}: extends`;
  if (typeof ref !== 'string' || ref === '') throw new InputError(`${file}: invalid scenario (1 problem)`, [`${where}: expected a file name, got ${show(ref)}`]);
  const parentFile = relativeTo(file, ref);
  const chain = [...seen, resolve(file)];
  if (chain.includes(resolve(parentFile))) {
    throw new InputError(`${file}: invalid scenario (1 problem)`, [`${where}: ${[...chain, resolve(parentFile)].map((f) => relative(process.cwd(), f)).join(' → ')}: a file extends itself`]);
  }
  let parentText: string;
  try {
    parentText = await read(parentFile);
  } catch (err) {
    throw new InputError(`${file}: invalid scenario (1 problem)`, [`${where}: cannot read ${parentFile}: ${(err as Error).message}`]);
  }
  const parent = await resolveExtends(parentText, parentFile, read, chain);
  const { extends: _e, ...data } = own.data;
  const children = own.origin.children instanceof Map ? new Map(own.origin.children) : new Map<string, Origin>();
  children.delete('extends');
  const merged = mergeWithOrigins({ value: parent.data, origin: parent.origin }, { value: data, origin: { at: own.origin.at, children } }, []);
  return { file, data: merged.value as Record<string, unknown>, origin: merged.origin ?? own.origin, files: [...files, ...parent.files] };
}

/** `ref` as written in `file`: relative to the folder `file` is in (absolute if `file` is). */
function relativeTo(file: string, ref: string): string {
  return isAbsolute(ref) ? ref : join(dirname(file), ref);
}

interface Located {
  value: unknown;
  origin: Origin | undefined;
}

/** The data merge alone (rules 1-5), for callers without origins. */
export function mergeScenarioData(parent: Record<string, unknown>, child: Record<string, unknown>): Record<string, unknown> {
  return mergeWithOrigins({ value: parent, origin: undefined }, { value: child, origin: undefined }, []).value as Record<string, unknown>;
}

function mergeWithOrigins(parent: Located, child: Located, path: string[]): Located {
  const p = parent.value;
  const c = child.value;
  const here = path.join('.');
  if (isObject(p) && isObject(c) && !REPLACED_ENTRIES.includes(path.slice(0, -1).join('.')) && !(isObject(p) && 'kind' in c && 'kind' in p && c.kind !== p.kind)) {
    const value: Record<string, unknown> = { ...p };
    const origins = new Map(childMap(parent.origin));
    for (const [k, v] of Object.entries(c)) {
      const co = childMap(child.origin).get(k);
      if (v === null) {
        delete value[k];
        origins.delete(k);
      } else if (k in p) {
        const m = mergeWithOrigins({ value: p[k], origin: childMap(parent.origin).get(k) }, { value: v, origin: co }, [...path, k]);
        value[k] = m.value;
        if (m.origin) origins.set(k, m.origin);
      } else {
        value[k] = v;
        if (co) origins.set(k, co);
      }
    }
    return { value, origin: { at: (child.origin ?? parent.origin)?.at ?? { file: '', line: 1, col: 1 }, children: origins } };
  }
  if (Array.isArray(p) && Array.isArray(c) && NAMED_LISTS.includes(here)) return mergeByName(parent, child, path);
  return child;
}

function mergeByName(parent: Located, child: Located, path: string[]): Located {
  const items = (parent.value as unknown[]).map((v, i) => ({ value: v, origin: childList(parent.origin)[i] }) as Located);
  (child.value as unknown[]).forEach((v, i) => {
    const co = childList(child.origin)[i];
    const name = isObject(v) ? v.name : undefined;
    const j = name === undefined ? -1 : items.findIndex((it) => isObject(it.value) && it.value.name === name);
    if (j < 0) {
      items.push({ value: v, origin: co });
      return;
    }
    if (isObject(v) && v.remove === true) items.splice(j, 1);
    else items[j] = mergeWithOrigins(items[j], { value: v, origin: co }, [...path, String(j)]);
  });
  const origin = child.origin ? { at: child.origin.at, children: items.map((it) => it.origin ?? child.origin) as Origin[] } : undefined;
  return { value: items.map((it) => it.value), origin };
}

function childMap(o: Origin | undefined): Map<string, Origin> {
  return o?.children instanceof Map ? o.children : new Map();
}

function childList(o: Origin | undefined): Origin[] {
  return Array.isArray(o?.children) ? o.children : [];
}
