/**
 * Secret redaction for anything that ends up in a published result: values under
 * secret-looking field names, and secrets embedded in connection strings and URLs.
 */

export const REDACTED = '***';

/**
 * Field names whose values are secrets, matched on the name lowercased with separators
 * removed ("SASL_PASSWORD" -> "saslpassword"). `token` and `key` are matched only as the end of
 * a name so that e.g. `tokenBucket` or `keyCount` stay.
 */
const SECRET_NAME = [
  /pass(word|wd|phrase)$/,
  /^pass$/,
  /pwd$/,
  /secret/,
  /token$/,
  /accesskey/,
  /apikey/,
  /privatekey/,
  /accountkey/,
  /sharedaccess/,
  /credentials?$/,
  /^authorization$/,
];

function isSecretName(name: string): boolean {
  const n = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_NAME.some((re) => re.test(n));
}

/** Secrets inside strings: connection-string keys and URL passwords. */
const IN_STRING: [RegExp, string][] = [
  // Azure: "...;SharedAccessKey=abc;..." / "AccountKey=..." / "SharedAccessSignature=..."
  [/((?:SharedAccessKey|AccountKey|SharedAccessSignature|Password|Pwd)\s*=\s*)([^;]+)/gi, `$1${REDACTED}`],
  // scheme://user:password@host. The scheme is bounded (real ones are short): unbounded, every
  // letter of a long word started a scan to the word's end, and a 200,000-letter word took 45 s.
  [/([a-z][a-z0-9+.-]{0,31}:\/\/[^:/?#@\s]*:)([^/?#\s]+)(@)/gi, `$1${REDACTED}$3`],
  // ...?sig=...&password=... (SAS tokens, credentials passed as query parameters)
  [/([?&](?:sig|password|pwd|token|access_token|secret)=)([^&#\s]+)/gi, `$1${REDACTED}`],
  // A PEM private key given inline
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, REDACTED],
];

/**
 * Secret values this process was given (external connection settings, resolved `${env:…}`
 * references): hidden wherever they appear, whatever the field is called. Values shorter than
 * MIN_KNOWN are not kept: hiding every "ab" would garble the output and protect nothing.
 */
const known = new Set<string>();
const MIN_KNOWN = 4;

export function registerSecret(value: string): void {
  if (value.length < MIN_KNOWN) return;
  known.add(value);
  const encoded = encodeURIComponent(value);
  if (encoded !== value) known.add(encoded);
}

/** Forgets the registered secrets (tests). */
export function clearRegisteredSecrets(): void {
  known.clear();
}

export function redactString(s: string): string {
  let out = s;
  for (const [re, to] of IN_STRING) out = out.replace(re, to);
  for (const secret of known) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

/**
 * A deep copy of `value` with secrets replaced by "***". Strings and numbers under a secret
 * name are replaced whole (objects under one are redacted throughout); every other string
 * is scanned for embedded secrets. The input is not modified.
 */
export function redactSecrets<T>(value: T): T {
  return walk(value, false, new WeakMap()) as T;
}

function walk(value: unknown, secret: boolean, seen: WeakMap<object, unknown>): unknown {
  if (typeof value === 'string') return secret && value !== '' ? REDACTED : redactString(value);
  if (typeof value === 'number' || typeof value === 'bigint') return secret ? REDACTED : value;
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return seen.get(value);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    seen.set(value, out);
    for (const v of value) out.push(walk(v, secret, seen));
    return out;
  }
  if (!isPlain(value)) return value;
  const out: Record<string, unknown> = {};
  seen.set(value, out);
  for (const [k, v] of Object.entries(value)) out[k] = walk(v, secret || isSecretName(k), seen);
  return out;
}

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
