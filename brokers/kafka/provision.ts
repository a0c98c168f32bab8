/**
 * Apache Kafka from Maven Central jars, collected once into the shared cache:
 *   <cache>/kafka/<version>/libs    the broker's classpath (kafka_2.13 + a log4j2 slf4j binding)
 *   <cache>/kafka/<version>/tools   kafka-tools (ProducerPerformance...), apart: it pulls connect
 *   <cache>/kafka/<version>/log4j2.xml
 * Each folder is filled in a temporary sibling and renamed into place, so two processes
 * provisioning at once never see (or leave) half a folder: the loser of the rename drops its copy.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { cacheDir } from '../../harness/runtime/cache.ts';
import { MAVEN_HINT, run } from '../../harness/runtime/tools.ts';
import type { CachedItem } from '../../harness/broker/contract.ts';
import { JAVA, MAVEN, requireTool } from '../../harness/runtime/requirements.ts';
import { InfraError } from '../../harness/errors.ts';

/** Tried in this order when the scenario leaves the version to us (newest first). */
export const FALLBACK_VERSIONS = ['4.4.0', '4.3.1', '4.2.2', '4.1.2', '4.0.2'];
const LOG4J_VERSION = '2.25.5';
const DEPENDENCY_PLUGIN = '3.8.1';
const COMPLETE = '.complete';

export interface KafkaInstall {
  version: string;
  /** Broker classpath: every jar of libs/. */
  libsDir: string;
  /** kafka-tools classpath (only when asked for). */
  toolsDir?: string;
  log4jConfig: string;
  /** WARN-level config for the tools, so their stdout is just their results. */
  toolsLog4jConfig: string;
  classpath(dir?: string): string;
}

function pom(artifacts: { g: string; a: string; v: string }[]): string {
  const deps = artifacts
    .map((d) => `    <dependency><groupId>${d.g}</groupId><artifactId>${d.a}</artifactId><version>${d.v}</version></dependency>`)
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>convoy</groupId>
  <artifactId>convoy-kafka-classpath</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
${deps}
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-dependency-plugin</artifactId>
        <version>${DEPENDENCY_PLUGIN}</version>
      </plugin>
    </plugins>
  </build>
</project>
`;
}

const LOG4J_ARTIFACTS = [
  { g: 'org.apache.logging.log4j', a: 'log4j-api', v: LOG4J_VERSION },
  { g: 'org.apache.logging.log4j', a: 'log4j-core', v: LOG4J_VERSION },
  // Kafka 4 logs through slf4j 1.7 but ships no binding: without this the broker logs nothing.
  { g: 'org.apache.logging.log4j', a: 'log4j-slf4j-impl', v: LOG4J_VERSION },
];

/** Plain-text log4j2 config: broker lines to stdout (the process log file), quiet defaults. */
export const LOG4J2_XML = `<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="WARN">
  <Appenders>
    <Console name="STDOUT" target="SYSTEM_OUT">
      <PatternLayout pattern="[%d{ISO8601}] %p %m (%c{1})%n"/>
    </Console>
  </Appenders>
  <Loggers>
    <Root level="INFO"><AppenderRef ref="STDOUT"/></Root>
    <Logger name="kafka.request.logger" level="WARN"/>
    <Logger name="state.change.logger" level="WARN"/>
    <Logger name="org.apache.kafka.controller" level="INFO"/>
    <Logger name="kafka.log.LogCleaner" level="WARN"/>
    <Logger name="org.apache.kafka.storage.internals.log" level="WARN"/>
    <Logger name="kafka.log" level="WARN"/>
  </Loggers>
</Configuration>
`;

/** For the tools (ProducerPerformance...): warnings only, so stdout carries just their results. */
export const TOOLS_LOG4J2_XML = LOG4J2_XML.replace('<Root level="INFO">', '<Root level="WARN">');

export class NotResolvable extends InfraError {}

/**
 * Copies an artifact set's runtime classpath into `target` (once, atomically). Throws
 * NotResolvable when Maven says the artifact does not exist, InfraError for anything else.
 */
export function collect(target: string, artifacts: { g: string; a: string; v: string }[], what: string, log: (l: string) => void): void {
  if (existsSync(join(target, COMPLETE))) return;
  const mvn = requireTool(MAVEN, 'to download Apache Kafka from Maven Central');
  requireTool(JAVA, 'to run Apache Kafka');
  const parent = join(target, '..');
  mkdirSync(parent, { recursive: true });
  const tmp = join(parent, `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(tmp, { recursive: true });
  const started = Date.now();
  log(`collecting ${what} from Maven Central into ${target} (first use only)`);
  try {
    writeFileSync(join(tmp, 'pom.xml'), pom(artifacts));
    const out = join(tmp, 'jars');
    try {
      run(mvn, ['-q', '-B', '-f', join(tmp, 'pom.xml'), 'dependency:copy-dependencies', `-DoutputDirectory=${out}`, '-DincludeScope=runtime'], {
        what: `collecting ${what} with Maven`,
        hint: MAVEN_HINT,
        timeoutMs: 900_000,
      });
    } catch (err) {
      const text = err instanceof InfraError ? err.detail.join('\n') : String(err);
      if (/Could not (find|resolve) artifact|was not found in|Failure to find/i.test(text)) {
        throw new NotResolvable(`${what} is not on Maven Central`, (err as InfraError).detail ?? [], { cause: err });
      }
      throw err;
    }
    const jars = readdirSync(out).filter((f) => f.endsWith('.jar'));
    if (jars.length === 0) throw new InfraError(`Maven copied no jars for ${what}`);
    writeFileSync(join(out, COMPLETE), JSON.stringify({ artifacts, jars: jars.length, seconds: (Date.now() - started) / 1000 }));
    // An empty target (left by cacheDir or a crash before any copy) can be replaced by rename.
    if (existsSync(target) && !existsSync(join(target, COMPLETE))) rmSync(target, { recursive: true, force: true });
    try {
      renameSync(out, target);
    } catch (err) {
      if (!existsSync(join(target, COMPLETE))) throw err; // someone else won the race: use theirs
    }
    log(`collected ${jars.length} jars for ${what} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function versionDir(version: string): string {
  return cacheDir('kafka', version);
}

function makeInstall(version: string, withTools: boolean): KafkaInstall {
  const base = versionDir(version);
  const log4jConfig = join(base, 'log4j2.xml');
  const toolsLog4jConfig = join(base, 'log4j2-tools.xml');
  for (const [file, text] of [
    [log4jConfig, LOG4J2_XML],
    [toolsLog4jConfig, TOOLS_LOG4J2_XML],
  ] as const) {
    if (!existsSync(file) || readFileSync(file, 'utf8') !== text) {
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, text);
      renameSync(tmp, file);
    }
  }
  const libsDir = join(base, 'libs');
  const toolsDir = withTools ? join(base, 'tools') : undefined;
  return {
    version,
    libsDir,
    toolsDir,
    log4jConfig,
    toolsLog4jConfig,
    classpath: (dir = libsDir) => join(dir, '*'),
  };
}

export function isProvisioned(version: string, withTools = false): boolean {
  const base = versionDir(version);
  return existsSync(join(base, 'libs', COMPLETE)) && (!withTools || existsSync(join(base, 'tools', COMPLETE)));
}

/** Broker jars for an exact version (and the perf tools when asked). */
export function provisionVersion(version: string, opts: { tools?: boolean; log?: (l: string) => void } = {}): KafkaInstall {
  if (!/^4\.\d+\.\d+$/.test(version)) throw new InfraError(`Kafka version "${version}" is not a 4.x release (e.g. 4.4.0)`);
  const log = opts.log ?? (() => {});
  const inst = makeInstall(version, !!opts.tools);
  collect(inst.libsDir, [{ g: 'org.apache.kafka', a: 'kafka_2.13', v: version }, ...LOG4J_ARTIFACTS], `Kafka ${version} broker jars`, log);
  if (opts.tools && inst.toolsDir) {
    collect(inst.toolsDir, [{ g: 'org.apache.kafka', a: 'kafka-tools', v: version }, ...LOG4J_ARTIFACTS], `Kafka ${version} tools`, log);
  }
  return inst;
}

const DEFAULT_FILE = () => join(cacheDir('kafka'), 'default-version.json');

/** The default version once chosen (sync, for resolveSettings); undefined before the first run. */
export function knownDefaultVersion(): string | undefined {
  try {
    const v = (JSON.parse(readFileSync(DEFAULT_FILE(), 'utf8')) as { version: string }).version;
    return isProvisioned(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The newest 4.x that resolves: FALLBACK_VERSIONS in order (4.4.0 first), the first whose
 * jars Maven can collect wins and is remembered in the cache.
 */
export function provisionDefault(opts: { tools?: boolean; log?: (l: string) => void } = {}): KafkaInstall {
  const known = knownDefaultVersion();
  if (known) return provisionVersion(known, opts);
  const skipped: string[] = [];
  for (const v of FALLBACK_VERSIONS) {
    try {
      const inst = provisionVersion(v, opts);
      const tmp = `${DEFAULT_FILE()}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ version: v, chosenAt: new Date().toISOString(), skipped }, null, 2));
      renameSync(tmp, DEFAULT_FILE());
      return inst;
    } catch (err) {
      if (!(err instanceof NotResolvable)) throw err;
      skipped.push(v);
      opts.log?.(`Kafka ${v} does not resolve from Maven Central; trying an older 4.x`);
    }
  }
  throw new InfraError(`no Kafka 4.x version resolved from Maven Central (tried ${FALLBACK_VERSIONS.join(', ')})`);
}

/** What `convoy doctor` lists: the default version's broker and tools jars. */
export function cachedItems(): CachedItem[] {
  const v = knownDefaultVersion();
  if (!v) return [{ what: 'Kafka broker and tools jars (the version is chosen on first use)', path: cacheDir('kafka'), present: false }];
  return [
    { what: `Kafka ${v} broker jars`, path: join(versionDir(v), 'libs'), present: isProvisioned(v) },
    { what: `Kafka ${v} tools jars (perf tools)`, path: join(versionDir(v), 'tools'), present: isProvisioned(v, true) },
  ];
}

/** `version` as a scenario gives it: "latest" (or absent) means the newest that resolves. */
export function provision(version: string | undefined, opts: { tools?: boolean; log?: (l: string) => void } = {}): KafkaInstall {
  return !version || version === 'latest' ? provisionDefault(opts) : provisionVersion(version, opts);
}

/** Command line for a tool class on the kafka-tools classpath, e.g. ProducerPerformance. */
export function toolCommand(inst: KafkaInstall, mainClass: string, args: string[]): { command: string; args: string[] } {
  if (!inst.toolsDir) throw new InfraError('Kafka tools were not provisioned (provision with { tools: true })');
  const java = requireTool(JAVA, 'to run the Kafka tools');
  return {
    command: java,
    args: ['-Xmx512m', '-XX:+UseSerialGC', `-Dlog4j2.configurationFile=${inst.toolsLog4jConfig}`, '-cp', inst.classpath(inst.toolsDir), mainClass, ...args],
  };
}

export const PRODUCER_PERFORMANCE = 'org.apache.kafka.tools.ProducerPerformance';
export const CONSUMER_PERFORMANCE = 'org.apache.kafka.tools.ConsumerPerformance';
