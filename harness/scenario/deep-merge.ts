/** Deep merge of plain objects (arrays and scalars from `over` replace those in `base`). */
export function deepMerge<T extends Record<string, unknown>>(base: T, over: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = isPlain(b) && isPlain(v) ? deepMerge(b, v) : v;
  }
  return out as T;
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
