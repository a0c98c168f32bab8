/** Small helpers over plain values and JSON Schemas, shared by the loader's modules. */
export type SchemaObject = Record<string, unknown>;

/** A value as the user wrote it: strings quoted, lists and mappings named. */
export function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return 'a list';
  if (isObject(v)) return 'a mapping';
  return String(v);
}

export function plain(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function dedupe(lines: string[]): string[] {
  return [...new Set(lines)];
}

export function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}


export function deref(schema: unknown, root: SchemaObject): SchemaObject {
  let s = (isObject(schema) ? schema : {}) as SchemaObject;
  for (let i = 0; i < 10 && typeof s.$ref === 'string'; i++) {
    const { $ref, ...rest } = s;
    s = { ...resolvePointer(root, $ref as string), ...rest };
  }
  return s;
}

export function resolvePointer(root: SchemaObject, ref: string): SchemaObject {
  if (!ref.startsWith('#')) return {};
  let cur: unknown = root;
  for (const seg of ref.slice(1).split('/').slice(1)) {
    cur = isObject(cur) ? cur[unescapePointer(seg)] : undefined;
  }
  return isObject(cur) ? cur : {};
}

export function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function unescapePointer(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

export function valueAt(data: unknown, pointer: string): unknown {
  let cur = data;
  for (const seg of pointer.split('/').slice(1)) cur = isObject(cur) || Array.isArray(cur) ? (cur as any)[unescapePointer(seg)] : undefined;
  return cur;
}

/** "/workload/producers/0/name" → "workload.producers[0].name" (under `base`). */
