/**
 * The external runtime's connection settings, from three places, the first that sets a key
 * winning: the command line (`--external key=value`, repeated), a connection file
 * (`--connection file.yaml`, or a name in the user's connections.yaml), then the environment
 * (CONVOY_EXTERNAL_<KEY>). Each broker kind declares the settings it takes
 * (BrokerModule.externalSettings): any other key is refused. A value may name a secret instead of
 * holding it, `${env:NAME}` or `${file:/path}` (whole or inside a URL), resolved here; every
 * secret value is registered for redaction, so that no result, log or message shows it.
 * docs/external.md describes all of this for users.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import type { BrokerSettings, ExternalSetting, RuntimeKind } from '../broker/contract.ts';
import { loadBroker } from '../broker/registry.ts';
import { registerSecret } from '../checker/redact.ts';
import { InputError } from '../errors.ts';

export interface ExternalFlags {
  external?: string[];
  connection?: string;
}

type Value = string | boolean;
/** One setting and where it came from (`--external`, the connection, the variable's name). */
interface Given {
  value: Value;
  from: string;
}

/** A connection file's contents: the broker kind it is for and its settings, by dotted key. */
export interface Connection {
  /** How to name it in messages: the file, or `staging (~/.config/convoy/connections.yaml)`. */
  name: string;
  kind: string;
  settings: Map<string, Value>;
}

export const ENV_PREFIX = 'CONVOY_EXTERNAL_';

/** sasl.password → CONVOY_EXTERNAL_SASL_PASSWORD; bootstrapServers → CONVOY_EXTERNAL_BOOTSTRAP_SERVERS. */
export function envName(key: string): string {
  return ENV_PREFIX + key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/\./g, '_').toUpperCase();
}

/** The user's named connections: $XDG_CONFIG_HOME/convoy/connections.yaml (default ~/.config/...). */
export function userConnectionsFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'convoy', 'connections.yaml');
}

/** `--external k=v`, repeated: the text of each value, by key. */
function parsePairs(pairs: readonly string[]): Map<string, Given> {
  const out = new Map<string, Given>();
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new InputError(`--external: expected key=value, got "${pair.replace(/=.*/, '=…')}"`);
    out.set(pair.slice(0, eq), { value: pair.slice(eq + 1), from: '--external' });
  }
  return out;
}

/** A mapping's leaves by dotted key (`sasl: {password: x}` → sasl.password); numbers become text. */
function flatten(node: Record<string, unknown>, where: string, prefix = '', out = new Map<string, Value>()): Map<string, Value> {
  for (const [k, v] of Object.entries(node)) {
    const key = prefix + k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) flatten(v as Record<string, unknown>, where, `${key}.`, out);
    else if (typeof v === 'string' || typeof v === 'boolean') out.set(key, v);
    else if (typeof v === 'number') out.set(key, String(v));
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out.set(key, v.join(','));
    else throw new InputError(`${where}: ${key}: expected text, a number or true/false`);
  }
  return out;
}

function readYaml(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError(`--connection ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length) {
    const e = doc.errors[0];
    const at = e.linePos?.[0] ? `:${e.linePos[0].line}:${e.linePos[0].col}` : '';
    throw new InputError(`${file}${at}: not valid YAML: ${e.message.split('\n')[0]}`);
  }
  const data = doc.toJS() as unknown;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new InputError(`${file}: expected a mapping`);
  return data as Record<string, unknown>;
}

/** One connection's mapping (`kind:` and its settings), checked for its shape only. */
export function toConnection(data: unknown, name: string): Connection {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new InputError(`${name}: expected a mapping with kind: and the settings`);
  const { kind, ...rest } = data as Record<string, unknown>;
  if (typeof kind !== 'string' || kind === '') throw new InputError(`${name}: kind: expected the broker kind it connects to (kafka, rabbitmq, sqs, pubsub, servicebus)`);
  return { name, kind, settings: flatten(rest, name) };
}

/**
 * `--connection <file|name>`: a file (a path, or any name ending .yaml/.yml), else a name in the
 * user's connections.yaml, whose top-level keys name connections.
 */
export function loadConnection(arg: string, env: NodeJS.ProcessEnv = process.env): Connection {
  if (/[/\\]|\.ya?ml$/.test(arg) || existsSync(arg)) {
    const file = resolve(arg);
    if (!existsSync(file)) throw new InputError(`--connection ${arg}: no such file`);
    return toConnection(readYaml(file), arg);
  }
  const file = userConnectionsFile(env);
  if (!existsSync(file)) throw new InputError(`--connection ${arg}: not a file, and there is no ${file} to look the name up in`);
  const named = readYaml(file);
  if (!(arg in named)) {
    const names = Object.keys(named);
    throw new InputError(`--connection ${arg}: ${file} has no connection of that name (${names.length ? `it has: ${names.join(', ')}` : 'it names none'})`);
  }
  return toConnection(named[arg], `${arg} (${file})`);
}

const REFERENCE = /\$\{(env|file):([^}]*)\}/g;

/** The value with its `${env:NAME}` and `${file:/path}` references replaced; the texts they gave. */
function resolveReferences(raw: string, where: string, env: NodeJS.ProcessEnv): { value: string; resolved: string[] } {
  const resolved: string[] = [];
  const value = raw.replace(REFERENCE, (ref: string, source: string, name: string) => {
    let text: string;
    if (source === 'env') {
      const v = env[name];
      if (v === undefined || v === '') throw new InputError(`${where}: ${ref} is not set (an empty or missing environment variable)`);
      text = v;
    } else {
      const path = name.startsWith('~/') ? join(homedir(), name.slice(2)) : name;
      try {
        // A secrets file usually ends with a newline that is not part of the secret.
        text = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
      } catch (err) {
        throw new InputError(`${where}: ${ref} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
      }
    }
    resolved.push(text);
    return text;
  });
  return { value, resolved };
}

/** The part of a literal secret that is secret: a URL's password, else the whole value. */
export function secretParts(value: string): string[] {
  const url = /^[a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*:([^/?#\s@]*)@/i.exec(value);
  if (url) return url[1] ? [url[1], safeDecode(url[1])] : [];
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return [];
  return value ? [value] : [];
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Flat dotted keys into the nested object deploy() reads; `ssl=true` then `ssl.ca=…` makes ssl an object. */
export function nest(flat: Iterable<[string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of flat) {
    const path = key.split('.');
    let node = out;
    for (const part of path.slice(0, -1)) {
      const next = node[part];
      node = (next !== null && typeof next === 'object' ? next : (node[part] = {})) as Record<string, unknown>;
    }
    const last = path[path.length - 1];
    // A parent set by a shorter key (ssl.ca before ssl=true) keeps its settings.
    if (!(typeof node[last] === 'object' && node[last] !== null)) node[last] = value;
  }
  return out;
}

/** `--external k=v` alone, nested: "true" and "false" become booleans, everything else stays text. */
export function parseExternal(pairs: string[]): Record<string, unknown> {
  return nest([...parsePairs(pairs)].map(([k, g]) => [k, typed(g.value)]));
}

function typed(v: Value): Value {
  return v === 'true' ? true : v === 'false' ? false : v;
}

/** A pass-through key whose name says it holds a secret (its value is redacted like a declared secret's). */
const SECRET_KEY = /pass(word|phrase)?|secret|token|credential|jaas|\.key$/i;

/** The pass-through setting a key falls under (`librdkafka.socket.keepalive.enable` → `librdkafka`). */
function passThroughOf(settings: readonly ExternalSetting[], key: string): ExternalSetting | undefined {
  return settings.find((s) => s.passThrough && key.startsWith(`${s.key}.`));
}

export interface ResolveInput {
  kind: string;
  /** The broker kind's settings (BrokerModule.externalSettings). */
  settings: readonly ExternalSetting[];
  pairs: readonly string[];
  connection?: Connection;
  env: NodeJS.ProcessEnv;
  warn: (line: string) => void;
}

/** The settings of one broker kind, merged, checked, resolved and nested; secrets registered. */
export function resolveExternal(input: ResolveInput): Record<string, unknown> {
  const { kind, settings, connection, env } = input;
  if (connection && connection.kind !== kind) {
    throw new InputError(`--connection ${connection.name}: a ${connection.kind} connection, but the scenario's broker is ${kind}`);
  }
  const byKey = new Map(settings.map((s) => [s.key, s]));
  const merged = new Map<string, Given>();
  for (const s of settings) {
    const name = envName(s.key);
    if (!s.aliasOf && !s.passThrough && env[name] !== undefined) merged.set(s.key, { value: env[name]!, from: name });
  }
  for (const [key, value] of connection?.settings ?? []) merged.set(key, { value, from: connection!.name });
  for (const [key, given] of parsePairs(input.pairs)) merged.set(key, given);

  const out: [string, Value][] = [];
  for (const [key, { value, from }] of merged) {
    const spec = byKey.get(key) ?? passThroughOf(settings, key);
    if (!spec) {
      const known = settings.filter((s) => !s.aliasOf).map((s) => s.key).join(', ');
      throw new InputError(`${from}: ${kind} takes no external setting "${key}" (it takes: ${known})`);
    }
    if (typeof value === 'boolean') {
      out.push([key, value]);
      continue;
    }
    const where = from === '--external' ? `--external ${key}` : `${from}: ${key}`;
    const { value: text, resolved } = resolveReferences(value, where, env);
    if (spec.secret || (spec.passThrough && SECRET_KEY.test(key))) {
      const literal = resolved.length === 0 ? secretParts(text) : [];
      for (const part of [...resolved, ...literal]) registerSecret(part);
      if (from === '--external' && literal.length) {
        input.warn(`--external ${key}: a secret on the command line shows in ps, shell history and CI logs; set ${envName(key)}, write --external '${key}=\${env:NAME}' (or \${file:/path}), or put it in a --connection file`);
      }
    }
    out.push([key, from === connection?.name ? text : typed(text)]);
  }
  return nest(out);
}

/**
 * The external settings for a scenario's broker kind, from the command's flags and the
 * environment; undefined off the external runtime. Each kind is resolved once per command
 * (a suite's scenarios share it), so a warning is said once.
 */
export function externalSource(
  runtime: RuntimeKind,
  flags: ExternalFlags,
  env: NodeJS.ProcessEnv = process.env,
): ((kind: string, settings?: BrokerSettings) => Promise<Record<string, unknown>>) | undefined {
  if (runtime !== 'external') {
    if (flags.connection) throw new InputError(`--connection: only with --runtime external (got --runtime ${runtime})`);
    return undefined;
  }
  const connection = flags.connection ? loadConnection(flags.connection, env) : undefined;
  const warn = (line: string) => process.stderr.write(`convoy: warning: ${line}\n`);
  const cache = new Map<string, Promise<Record<string, unknown>>>();
  return async (kind, settings) => {
    let found = cache.get(kind);
    if (!found) {
      found = loadBroker(kind).then(async (broker) => {
        if (!broker.externalSettings) throw new InputError(`the ${kind} broker has no external runtime`);
        const resolved = resolveExternal({ kind, settings: broker.externalSettings, pairs: flags.external ?? [], connection, env, warn });
        await broker.checkExternal?.(resolved);
        return resolved;
      });
      cache.set(kind, found);
    }
    const resolved = await found;
    // What the scenario's client cannot do with this connection (its settings differ per scenario).
    if (settings) await (await loadBroker(kind)).checkExternal?.(resolved, settings);
    return resolved;
  };
}
