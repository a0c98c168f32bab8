import { randomBytes } from 'node:crypto';

/**
 * Longest scenario slug kept whole. Twins differ at their ends (`...-prefetch` and
 * `...-prefetch-discard`), so names are kept whole up to a length every broker's names can
 * hold with the prefix and suffixes added (SQS hashes longer queue names itself).
 */
const MAX_SLUG = 64;

/** `<scenario>-<UTC yyyymmdd-hhmmss>-<4 hex>`: sortable, unique, safe in topic and queue names. */
export function newRunId(scenarioName: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const slug = scenarioName.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return `${shorten(slug) || 'run'}-${stamp}-${randomBytes(2).toString('hex')}`;
}

/** Longer slugs keep their start and their end, where twins' names differ. */
function shorten(slug: string): string {
  if (slug.length <= MAX_SLUG) return slug;
  const tail = 20;
  return `${slug.slice(0, MAX_SLUG - tail - 2).replace(/-$/, '')}--${slug.slice(-tail).replace(/^-/, '')}`;
}
