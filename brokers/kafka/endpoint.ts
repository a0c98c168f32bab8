/**
 * What clients need to reach a Kafka deployment, as plain JSON (it travels to worker
 * processes), and its translation into each client's connection options. TLS and SASL given
 * for the external runtime pass through to both clients unchanged in meaning.
 */
import { readFileSync, existsSync } from 'node:fs';
import type { Endpoint, ExternalSetting } from '../../harness/broker/contract.ts';
import { InputError } from '../../harness/errors.ts';
import type { KafkaConfig } from 'kafkajs';
import { jaasQuote, passThroughFromExternal, unsecuredJwt, type ClientPassThrough } from './client-config.ts';

export interface KafkaTls {
  /** PEM text or a file path. */
  ca?: string;
  cert?: string;
  key?: string;
  /** Default true. */
  rejectUnauthorized?: boolean;
}

export const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512', 'oauthbearer'] as const;

export interface KafkaSasl {
  mechanism: (typeof SASL_MECHANISMS)[number];
  /** plain and scram. */
  username?: string;
  password?: string;
  /** oauthbearer: an unsecured JWT (alg none) for this principal, for test clusters that accept one. */
  principal?: string;
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
  /** A topic created beforehand (the external runtime's topic.name): convoy uses it, creates and deletes no topic, and tells runs apart by the run id in each payload. */
  topic?: string;
  /** The user's pass-through client settings (client-config.ts). */
  clientConfig?: ClientPassThrough;
  /** client java: its connection properties, made from the rest by javaConnection() (the Java process reads them). */
  javaProperties?: Record<string, string>;
  /** A cluster convoy did not start (the external runtime). */
  external?: boolean;
  /** Set with `topic`: producers put the run id in every payload, consumers pass over other runs' messages. */
  runTagged?: boolean;
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
  { key: 'sasl.mechanism', help: 'plain, scram-sha-256, scram-sha-512 or oauthbearer' },
  { key: 'sasl.username', help: 'SASL user' },
  { key: 'sasl.password', help: 'SASL password', secret: true },
  { key: 'sasl.principal', help: 'oauthbearer: the principal (sub) of an unsecured JWT' },
  { key: 'topic.name', help: 'a topic created beforehand: convoy uses it and creates or deletes no topic' },
  { key: 'kafkajs', help: 'kafkajs options, passed through (kafkajs.<option>, kafkajs.producer.<option>, kafkajs.consumer.<option>)', passThrough: true },
  { key: 'librdkafka', help: 'librdkafka properties for client confluent, passed through (librdkafka.<property>)', passThrough: true },
  { key: 'java', help: 'Java client properties for client java, passed through (java.<property>)', passThrough: true },
  { key: 'platformatic', help: '@platformatic/kafka options for client platformatic, passed through (platformatic.<option>, platformatic.producer.<option>, platformatic.consumer.<option>)', passThrough: true },
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
  if (unknown.length) throw new InputError(`external Kafka: unknown setting(s) ${unknown.join(', ')} (known: ${EXTERNAL_SETTINGS.filter((s) => !s.aliasOf).map((s) => s.key).join(', ')})`);
  const out: KafkaEndpoint = { bootstrapServers, external: true };
  if (ext.topic !== undefined) {
    const name = (ext.topic as Record<string, unknown> | undefined)?.name;
    if (typeof name !== 'string' || !/^[a-zA-Z0-9._-]{1,249}$/.test(name)) throw new InputError(`external Kafka: topic.name must be a topic name (letters, digits, . _ -), got ${JSON.stringify(name)}`);
    out.topic = name;
    out.runTagged = true;
  }
  const clientConfig = passThroughFromExternal(ext);
  if (clientConfig) out.clientConfig = clientConfig;
  if (ext.ssl !== undefined) {
    if (typeof ext.ssl === 'boolean') out.ssl = ext.ssl;
    else if (typeof ext.ssl === 'object' && ext.ssl) out.ssl = ext.ssl as KafkaTls;
    else throw new InputError('external Kafka: ssl must be true/false or ssl.ca / ssl.cert / ssl.key / ssl.rejectUnauthorized');
  }
  if (ext.sasl !== undefined) {
    const s = ext.sasl as Record<string, unknown>;
    const mechanism = String(s.mechanism ?? '').toLowerCase();
    if (!(SASL_MECHANISMS as readonly string[]).includes(mechanism)) {
      throw new InputError(`external Kafka: sasl.mechanism must be ${SASL_MECHANISMS.join(', ')} (got "${String(s.mechanism ?? '')}")`);
    }
    if (mechanism === 'oauthbearer') {
      if (typeof s.principal !== 'string' || s.principal === '') throw new InputError('external Kafka: sasl.mechanism oauthbearer needs sasl.principal (the sub of the unsecured JWT convoy makes)');
      out.sasl = { mechanism: 'oauthbearer', principal: s.principal };
    } else {
      if (typeof s.username !== 'string' || typeof s.password !== 'string') {
        throw new InputError(`external Kafka: sasl.mechanism ${mechanism} needs sasl.username and sasl.password`);
      }
      out.sasl = { mechanism: mechanism as KafkaSasl['mechanism'], username: s.username, password: String(s.password) };
    }
  }
  return out;
}

/** PEM given inline or as a path. */
export function pem(v: string | undefined): string | undefined {
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
  if (e.sasl?.mechanism === 'oauthbearer') {
    const principal = e.sasl.principal!;
    out.sasl = { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: unsecuredJwt(principal) }) };
  } else if (e.sasl) out.sasl = { mechanism: e.sasl.mechanism, username: e.sasl.username, password: e.sasl.password } as KafkaConfig['sasl'];
  return out;
}

/** @platformatic/kafka: `bootstrapBrokers`, `tls` (tls.connect options), `sasl`. */
export function platformaticConnection(e: KafkaEndpoint): { bootstrapBrokers: string[]; tls?: Record<string, unknown>; sasl?: Record<string, unknown> } {
  const { brokers, ssl, sasl } = kafkajsConnection(e);
  const out: ReturnType<typeof platformaticConnection> = { bootstrapBrokers: brokers as string[] };
  if (ssl) out.tls = ssl === true ? {} : (ssl as Record<string, unknown>);
  if (e.sasl?.mechanism === 'oauthbearer') out.sasl = { mechanism: 'OAUTHBEARER', token: () => unsecuredJwt(e.sasl!.principal!) };
  else if (sasl) out.sasl = { mechanism: e.sasl!.mechanism.toUpperCase(), username: e.sasl!.username, password: e.sasl!.password };
  return out;
}

/** librdkafka properties for the same connection, and the user's librdkafka pass-through. */
export function rdkafkaConnection(e: KafkaEndpoint): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = { ...e.clientConfig?.librdkafka, 'bootstrap.servers': e.bootstrapServers.join(',') };
  const tls = !!e.ssl;
  if (e.sasl) {
    out['security.protocol'] = tls ? 'sasl_ssl' : 'sasl_plaintext';
    out['sasl.mechanism'] = e.sasl.mechanism.toUpperCase();
    if (e.sasl.mechanism === 'oauthbearer') {
      out['enable.sasl.oauthbearer.unsecure.jwt'] = true;
      out['sasl.oauthbearer.config'] = `principal=${e.sasl.principal}`;
    } else {
      out['sasl.username'] = e.sasl.username!;
      out['sasl.password'] = e.sasl.password!;
    }
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

const LOGIN_MODULES: Record<KafkaSasl['mechanism'], string> = {
  plain: 'org.apache.kafka.common.security.plain.PlainLoginModule',
  'scram-sha-256': 'org.apache.kafka.common.security.scram.ScramLoginModule',
  'scram-sha-512': 'org.apache.kafka.common.security.scram.ScramLoginModule',
  oauthbearer: 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule',
};

/**
 * The Java client's properties for the same connection (PEM given inline: ssl.truststore.type
 * and ssl.keystore.type PEM), and the user's java pass-through. The Java client cannot be told
 * to trust any server certificate: ssl.rejectUnauthorized false is refused for it.
 */
export function javaConnection(e: KafkaEndpoint): Record<string, string> {
  const out: Record<string, string> = { ...e.clientConfig?.java };
  const tls = !!e.ssl;
  if (e.sasl) {
    out['security.protocol'] = tls ? 'SASL_SSL' : 'SASL_PLAINTEXT';
    out['sasl.mechanism'] = e.sasl.mechanism.toUpperCase();
    const options =
      e.sasl.mechanism === 'oauthbearer'
        ? `unsecuredLoginStringClaim_sub=${jaasQuote(e.sasl.principal!)}`
        : `username=${jaasQuote(e.sasl.username!)} password=${jaasQuote(e.sasl.password!)}`;
    out['sasl.jaas.config'] = `${LOGIN_MODULES[e.sasl.mechanism]} required ${options};`;
  } else if (tls) {
    out['security.protocol'] = 'SSL';
  }
  if (e.ssl && typeof e.ssl === 'object') {
    if (e.ssl.rejectUnauthorized === false) {
      throw new InputError('external Kafka: ssl.rejectUnauthorized false: the Java client (client java) cannot skip certificate verification; give ssl.ca, or use client kafkajs or confluent');
    }
    if (e.ssl.ca) {
      out['ssl.truststore.type'] = 'PEM';
      out['ssl.truststore.certificates'] = pem(e.ssl.ca)!;
    }
    if (e.ssl.cert || e.ssl.key) {
      out['ssl.keystore.type'] = 'PEM';
      if (e.ssl.cert) out['ssl.keystore.certificate.chain'] = pem(e.ssl.cert)!;
      if (e.ssl.key) out['ssl.keystore.key'] = pem(e.ssl.key)!;
    }
  }
  return out;
}

/** The endpoint as the Java client process takes it: its connection properties made here. */
export function javaEndpoint(e: KafkaEndpoint): KafkaEndpoint {
  return { ...e, javaProperties: javaConnection(e) };
}

