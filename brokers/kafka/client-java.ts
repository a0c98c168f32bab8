/**
 * client: java — Apache Kafka's Java client (kafka-clients) in a process of its own, behind the
 * client protocol (docs/client-protocol.md). Its sources are java-client/src; on first use:
 *   <cache>/kafka/<version>/java-client-libs   kafka-clients and what the client needs (Maven Central)
 *   <cache>/kafka/java-client/<hash>/          the compiled classes, by the hash of the sources,
 *                                              the kafka-clients version and the JDK's major version
 * Both are made in a temporary sibling and renamed into place, so two workers compiling at once
 * never see half a folder.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir } from '../../harness/runtime/cache.ts';
import { run } from '../../harness/runtime/tools.ts';
import { JAVA, probe, requireTool } from '../../harness/runtime/requirements.ts';
import { collect, knownDefaultVersion, provisionDefault } from './provision.ts';
import { JDK } from './requirements.ts';
import type { KafkaSettings } from './settings.ts';
import type { CachedItem } from '../../harness/broker/contract.ts';

const SOURCES = fileURLToPath(new URL('./java-client/src', import.meta.url));
const MAIN_CLASS = 'convoy.client.Main';
const COMPLETE = '.complete';
const JACKSON = '2.21.7';
const SLF4J = '2.0.17';

/** The kafka-clients version a run uses: the scenario's javaClient.version, the broker's, or the newest 4.x. */
export function javaClientVersion(settings: KafkaSettings, log: (l: string) => void = () => {}): string {
  if (settings.javaClient?.version) return settings.javaClient.version;
  if (/^4\.\d+\.\d+$/.test(settings.version)) return settings.version;
  return knownDefaultVersion() ?? provisionDefault({ log }).version;
}

function javaFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...javaFiles(join(dir, e.name)));
    else if (e.name.endsWith('.java')) out.push(join(dir, e.name));
  }
  return out.sort();
}

function jdkMajor(javac: string): string {
  return probe(JDK).version?.split('.')[0] ?? javac;
}

function libsDir(version: string): string {
  return join(cacheDir('kafka', version), 'java-client-libs');
}

/** What `convoy doctor` lists: the Java client's jars for the default version (made on first use of client: java). */
export function javaClientCached(): CachedItem[] {
  const v = knownDefaultVersion();
  if (!v) return [];
  return [{ what: `Java client jars (kafka-clients ${v}; client: java, first use)`, path: libsDir(v), present: existsSync(join(libsDir(v), COMPLETE)) }];
}

/** Jars and compiled classes for `version`, made once; the Java process's classpath. */
export function ensureJavaClient(version: string, log: (l: string) => void): string {
  const javac = requireTool(JDK, "to compile convoy's Java client (client: java)");
  const libs = libsDir(version);
  collect(
    libs,
    [
      { g: 'org.apache.kafka', a: 'kafka-clients', v: version },
      { g: 'com.fasterxml.jackson.core', a: 'jackson-databind', v: JACKSON },
      // Declared first, so kafka-clients' older slf4j-api does not win over the binding's.
      { g: 'org.slf4j', a: 'slf4j-api', v: SLF4J },
      { g: 'org.slf4j', a: 'slf4j-simple', v: SLF4J },
    ],
    `the Java client's jars (kafka-clients ${version})`,
    log,
  );
  const files = javaFiles(SOURCES);
  const hash = createHash('sha256');
  hash.update(`${version}\0${jdkMajor(javac)}\0`);
  for (const f of files) hash.update(`${f.slice(SOURCES.length)}\0`).update(readFileSync(f)).update('\0');
  const target = join(cacheDir('kafka', 'java-client'), hash.digest('hex').slice(0, 16));
  const classpath = `${target}:${join(libs, '*')}`;
  if (existsSync(join(target, COMPLETE))) return classpath;
  const tmp = `${target}.tmp-${process.pid}-${randomBytes(3).toString('hex')}`;
  mkdirSync(tmp, { recursive: true });
  const started = Date.now();
  try {
    run(javac, ['--release', '17', '-nowarn', '-encoding', 'UTF-8', '-d', tmp, '-cp', join(libs, '*'), ...files], {
      what: "compiling convoy's Java client",
      timeoutMs: 120_000,
    });
    writeFileSync(join(tmp, COMPLETE), JSON.stringify({ version, files: files.length, seconds: (Date.now() - started) / 1000 }));
    try {
      renameSync(tmp, target);
    } catch (err) {
      if (!existsSync(join(target, COMPLETE))) throw err; // another worker compiled it first: use theirs
    }
    log(`compiled convoy's Java client against kafka-clients ${version} in ${((Date.now() - started) / 1000).toFixed(1)} s (once per version and source)`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return classpath;
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
