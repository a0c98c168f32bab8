/**
 * client: java — Apache Kafka's Java client (kafka-clients) in a process of its own, behind the
 * client protocol (docs/client-protocol.md). Its sources are java-client/src, compiled on first
 * use (java-build.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JAVA, requireTool } from '../../harness/runtime/requirements.ts';
import { ensureJavaProgram, javaLibsDir } from './java-build.ts';
import { knownDefaultVersion, provisionDefault } from './provision.ts';
import type { KafkaSettings } from './settings.ts';
import type { CachedItem } from '../../harness/broker/contract.ts';

const SOURCES = fileURLToPath(new URL('./java-client/src', import.meta.url));
const MAIN_CLASS = 'convoy.client.Main';

/** The kafka-clients version a run uses: the scenario's javaClient.version, the broker's, or the newest 4.x. */
export function javaClientVersion(settings: KafkaSettings, log: (l: string) => void = () => {}): string {
  if (settings.javaClient?.version) return settings.javaClient.version;
  if (/^4\.\d+\.\d+$/.test(settings.version)) return settings.version;
  return knownDefaultVersion() ?? provisionDefault({ log }).version;
}

/** Jars and compiled classes for `version`, made once; the Java process's classpath. */
export function ensureJavaClient(version: string, log: (l: string) => void): string {
  return ensureJavaProgram({ name: "convoy's Java client", purpose: "to compile convoy's Java client (client: java)", sources: SOURCES, version, log });
}

/** What `convoy doctor` lists: the Java programs' jars for the default version (made on first use). */
export function javaClientCached(): CachedItem[] {
  const v = knownDefaultVersion();
  if (!v) return [];
  return [{ what: `Java client jars (kafka-clients ${v}; client: java, first use)`, path: javaLibsDir(v), present: existsSync(join(javaLibsDir(v), '.complete')) }];
}

/** The Java client's command line for a run with these settings (compiling it first if needed). */
export function javaClientCommand(settings: KafkaSettings, log: (l: string) => void = () => {}): string[] {
  const classpath = ensureJavaClient(javaClientVersion(settings, log), log);
  const java = requireTool(JAVA, "to run convoy's Java client (client: java)");
  return [
    java,
    '-Xms32m',
    '-Xmx256m',
    '-XX:+UseSerialGC',
    '-XX:-UsePerfData',
    '-Xshare:auto',
    // The client's own log: warnings and up, to stderr (the client reads them back: ClientLog.java).
    '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn',
    '-Dorg.slf4j.simpleLogger.logFile=System.err',
    '-Dorg.slf4j.simpleLogger.showDateTime=true',
    '-cp',
    classpath,
    MAIN_CLASS,
  ];
}
