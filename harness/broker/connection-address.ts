/**
 * The address part of an external connection, as text without credentials: what the ledger of
 * external runs records to know which cluster a run created things on, and what `convoy clean
 * --external` compares with the connection it is given.
 */
import { redactSecrets } from '../checker/redact.ts';

/** Settings that say where a cluster is (a URL or connection string keeps its host; its secret parts are redacted). */
const ADDRESS_KEYS = ['bootstrapServers', 'bootstrap', 'brokers', 'url', 'amqpUrl', 'endpoint', 'region', 'projectId', 'emulatorHost', 'connectionString'];

export function connectionAddress(external: Record<string, unknown> | undefined): string {
  const picked = Object.fromEntries(ADDRESS_KEYS.filter((k) => external?.[k] !== undefined).map((k) => [k, external![k]]));
  const text = JSON.stringify(redactSecrets(picked));
  // The URL's user and password (and a connection string's key) never reach the ledger.
  return text.replace(/(\/\/)[^/@"]*@/g, '$1').replace(/(SharedAccessKey=)[^;"]*/g, '$1***');
}
