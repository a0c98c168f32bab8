import { randomBytes } from 'node:crypto';

/** `<scenario>-<UTC yyyymmdd-hhmmss>-<4 hex>`: sortable, unique, safe in topic and queue names. */
export function newRunId(scenarioName: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const slug = scenarioName.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'run';
  return `${slug}-${stamp}-${randomBytes(2).toString('hex')}`;
}
