/**
 * What a consumer under test gets (docs/consumer-under-test.md): the body the service expects,
 * made from the scenario's template (consumers.service.payload), and convoy's own fields as
 * headers beside it, which the service hands back in its reports.
 */
import { HEADER } from './report.ts';

export const DEFAULT_PAYLOAD = '{"key":"{{key}}","seq":{{seq}},"producer":"{{producer}}"}';
const FIELDS = ['key', 'seq', 'producer', 'run'] as const;
const PLACEHOLDER = /\{\{\s*([A-Za-z]+)\s*\}\}/g;

export interface MessageId {
  run: string;
  producer: string;
  key: string;
  seq: number;
}

/** Placeholders a template names that are not fields (the loader refuses them). */
export function unknownPlaceholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1]!).filter((f) => !(FIELDS as readonly string[]).includes(f));
}

/** The template with each placeholder replaced, JSON-escaped (a key with a quote stays valid JSON inside quotes). */
export function servicePayload(template: string, m: MessageId): Buffer {
  return Buffer.from(template.replace(PLACEHOLDER, (_, f: string) => (f === 'seq' ? String(m.seq) : JSON.stringify(String(m[f as keyof MessageId] ?? '')).slice(1, -1))));
}

export function serviceHeaders(m: MessageId): Record<string, string> {
  return { [HEADER.run]: m.run, [HEADER.producer]: m.producer, [HEADER.key]: m.key, [HEADER.seq]: String(m.seq) };
}

/** The message serviceHeaders describe (a broker's deduplication id is made from it); undefined when one is missing. */
export function messageIdOf(headers: Record<string, string>): MessageId | undefined {
  const [run, producer, key, seq] = [headers[HEADER.run], headers[HEADER.producer], headers[HEADER.key], Number(headers[HEADER.seq])];
  return run !== undefined && producer !== undefined && key !== undefined && Number.isInteger(seq) ? { run, producer, key, seq } : undefined;
}
