/** HTML text and attribute escaping, and JSON that is safe inside a <script> element. */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and quoted attribute values. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/**
 * JSON for a `<script type="application/json">` element: `<`, `>` and `&` become \u escapes
 * (so no `</script>` or `<!--` can appear), and so do U+2028/U+2029. JSON.parse reads it back
 * unchanged.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value ?? null)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Inline script text: a literal `</script` would end the element early. */
export function scriptText(js: string): string {
  return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** Inline style text: a literal `</style` would end the element early. */
export function styleText(css: string): string {
  return css.replace(/<\/(style)/gi, '<\\/$1');
}

/** `data-*` attributes from a record (values escaped; null and undefined left out). */
export function dataAttrs(values: Record<string, string | number | boolean | null | undefined>): string {
  return Object.entries(values)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => ` data-${k}="${esc(v)}"`)
    .join('');
}
