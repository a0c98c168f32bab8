/**
 * What clients need to reach a Kafka deployment, as plain JSON (it travels to worker
 * processes), and its translation into each client's connection options. TLS and SASL given
 * for the external runtime pass through to both clients unchanged in meaning.
 */
import { readFileSync, existsSync } from 'node:fs';
import type { Endpoint, ExternalSetting } from '../../harness/broker/contract.ts';
import { InputError } from '../../harness/errors.ts';
import type { KafkaConfig } from 'kafkajs';

export interface KafkaTls {
  /** PEM text or a file path. */
  ca?: string;
  cert?: string;
  key?: string;
  /** Default true. */
  rejectUnauthorized?: boolean;
}

export interface KafkaSasl {
  mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512';
  username: string;
  password: string;
}

export interface KafkaEndpoint {
  /** host:port list the clients bootstrap from (the Toxiproxy proxies for brokers convoy starts). */
  bootstrapServers: string[];
  ssl?: boolean | KafkaTls;
  sasl?: KafkaSasl;
  /**
   * The harness's own direct path for admin calls (brokers convoy starts): bypasses
   * Toxiproxy so fault evidence and clean-up work while client links are cut.
   */
  adminBootstrapServers?: string[];
}

/** The endpoint admin calls use: the direct path when there is one. */
export function adminEndpoint(e: KafkaEndpoint): KafkaEndpoint {
  return e.adminBootstrapServers?.length ? { ...e, bootstrapServers: e.adminBootstrapServers } : e;
}

export function toEndpoint(e: KafkaEndpoint): Endpoint {
  return JSON.parse(JSON.stringify(e)) as Endpoint;
}

export function parseEndpoint(e: Endpoint): KafkaEndpoint {
  const servers = e.bootstrapServers;
  if (!Array.isArray(servers) || servers.length === 0 || servers.some((s) => typeof s !== 'string')) {
    throw new InputError('Kafka endpoint without bootstrapServers');
  }
  return e as unknown as KafkaEndpoint;
}

/** The settings the external runtime reads (endpointFromExternal); docs/external.md lists them. */
export const EXTERNAL_SETTINGS: readonly ExternalSetting[] = [
  { key: 'bootstrapServers', help: 'host:port[,host:port]' },
  { key: 'bootstrap.servers', help: 'bootstrapServers', aliasOf: 'bootstrapServers' },
  { key: 'bootstrap', help: 'bootstrapServers', aliasOf: 'bootstrapServers' },
  { key: 'brokers', help: 'bootstrapServers', aliasOf: 'bootstrapServers' },
  { key: 'ssl', help: 'true: TLS with the system CAs' },
  { key: 'ssl.ca', help: 'CA certificate (PEM text or a path)' },
  { key: 'ssl.cert', help: 'client certificate (PEM text or a path)' },
  { key: 'ssl.key', help: 'client private key (PEM text or a path)', secret: true },
  { key: 'ssl.rejectUnauthorized', help: 'false: accept any server certificate' },
  { key: 'sasl.mechanism', help: 'plain, scram-sha-256 or scram-sha-512' },
  { key: 'sasl.username', help: 'SASL user' },
  { key: 'sasl.password', help: 'SASL password', secret: true },
];

/**
 * The external runtime's settings (`--external bootstrapServers=h1:9092,h2:9092
 * --external sasl.mechanism=scram-sha-512 --external sasl.username=u --external sasl.password=p
 * --external ssl=true` or `ssl.ca=/path/ca.pem`) as an endpoint.
 */
export function endpointFromExternal(ext: Record<string, unknown> | undefined): KafkaEndpoint {
  if (!ext) throw new InputError('the external runtime needs --external bootstrapServers=host:port[,host:port]');
  // bootstrapServers=..., brokers=..., bootstrap=... or bootstrap.servers=... (nested by the CLI)
  const nested = typeof ext.bootstrap === 'object' && ext.bootstrap ? (ext.bootstrap as Record<string, unknown>).servers : ext.bootstrap;
  const raw = ext.bootstrapServers ?? ext.brokers ?? nested;
  const list = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? raw.split(',') : [];
  const bootstrapServers = list.map((s) => s.trim()).filter(Boolean);
  if (bootstrapServers.length === 0) {
    throw new InputError('the external runtime needs --external bootstrapServers=host:port[,host:port]');
  }
  for (const s of bootstrapServers) if (!/^[^\s:]+:\d+$/.test(s)) throw new InputError(`external Kafka: "${s}" is not host:port`);
  const known = new Set(EXTERNAL_SETTINGS.map((s) => s.key.split('.')[0]));
  const unknown = Object.keys(ext).filter((k) => !known.has(k));
  if (unknown.length) throw new InputError(`external Kafka: unknown setting(s) ${unknown.join(', ')} (known: bootstrapServers (or bootstrap, brokers), ssl, ssl.ca, ssl.cert, ssl.key, ssl.rejectUnauthorized, sasl.mechanism, sasl.username, sasl.password)`);
  const out: KafkaEndpoint = { bootstrapServers };
  if (ext.ssl !== undefined) {
    if (typeof ext.ssl === 'boolean') out.ssl = ext.ssl;
    else if (typeof ext.ssl === 'object' && ext.ssl) out.ssl = ext.ssl as KafkaTls;
    else throw new InputError('external Kafka: ssl must be true/false or ssl.ca / ssl.cert / ssl.key / ssl.rejectUnauthorized');
  }
  if (ext.sasl !== undefined) {
    const s = ext.sasl as Record<string, unknown>;
    const mechanism = String(s.mechanism ?? '').toLowerCase();
    if (!['plain', 'scram-sha-256', 'scram-sha-512'].includes(mechanism)) {
      throw new InputError(`external Kafka: sasl.mechanism must be plain, scram-sha-256 or scram-sha-512 (got "${String(s.mechanism)}")`);
    }
    if (typeof s.username !== 'string' || typeof s.password !== 'string') {
      throw new InputError('external Kafka: sasl needs sasl.username and sasl.password');
    }
    out.sasl = { mechanism: mechanism as KafkaSasl['mechanism'], username: s.username, password: String(s.password) };
  }
  return out;
}

/** PEM given inline or as a path. */
function pem(v: string | undefined): string | undefined {
  if (!v) return undefined;
  if (v.includes('-----BEGIN')) return v;
  if (existsSync(v)) return readFileSync(v, 'utf8');
  throw new InputError(`TLS file not found: ${v}`);
}

/** kafkajs: `brokers`, `ssl` (boolean or tls.connect options), `sasl`. */
export function kafkajsConnection(e: KafkaEndpoint): Pick<KafkaConfig, 'brokers' | 'ssl' | 'sasl'> {
  const out: Pick<KafkaConfig, 'brokers' | 'ssl' | 'sasl'> = { brokers: e.bootstrapServers };
  if (e.ssl === true) out.ssl = true;
  else if (e.ssl && typeof e.ssl === 'object') {
    out.ssl = {
      ...(e.ssl.ca ? { ca: [pem(e.ssl.ca)!] } : {}),
      ...(e.ssl.cert ? { cert: pem(e.ssl.cert) } : {}),
      ...(e.ssl.key ? { key: pem(e.ssl.key) } : {}),
      rejectUnauthorized: e.ssl.rejectUnauthorized ?? true,
    };
  }
  if (e.sasl) out.sasl = { mechanism: e.sasl.mechanism, username: e.sasl.username, password: e.sasl.password } as KafkaConfig['sasl'];
  return out;
}

/** librdkafka properties for the same connection. */
export function rdkafkaConnection(e: KafkaEndpoint): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = { 'bootstrap.servers': e.bootstrapServers.join(',') };
  const tls = !!e.ssl;
  if (e.sasl) {
    out['security.protocol'] = tls ? 'sasl_ssl' : 'sasl_plaintext';
    out['sasl.mechanism'] = e.sasl.mechanism.toUpperCase();
    out['sasl.username'] = e.sasl.username;
    out['sasl.password'] = e.sasl.password;
  } else if (tls) {
    out['security.protocol'] = 'ssl';
  }
  if (e.ssl && typeof e.ssl === 'object') {
    if (e.ssl.ca) out['ssl.ca.pem'] = pem(e.ssl.ca)!;
    if (e.ssl.cert) out['ssl.certificate.pem'] = pem(e.ssl.cert)!;
    if (e.ssl.key) out['ssl.key.pem'] = pem(e.ssl.key)!;
    if (e.ssl.rejectUnauthorized === false) {
      out['enable.ssl.certificate.verification'] = false;
      out['ssl.endpoint.identification.algorithm'] = 'none';
    }
  }
  return out;
}
