/** The one `$id` convention of convoy's published JSON Schemas: https://convoy.dev/schema/<shape>.v<major>.json. */
export const SCHEMA_ID_BASE = 'https://convoy.dev/schema/';

export function schemaId(shape: string, major: number): string {
  return `${SCHEMA_ID_BASE}${shape}.v${major}.json`;
}
