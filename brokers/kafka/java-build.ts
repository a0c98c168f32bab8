/**
 * convoy's own Java programs for Kafka (the Java client, the request proxy), compiled against
 * kafka-clients on first use:
 *   <cache>/kafka/<version>/java-client-libs   kafka-clients, jackson-databind and slf4j-simple (Maven Central)
 *   <cache>/kafka/java/<hash>/                 a program's classes, by the hash of its sources,
 *                                              the kafka-clients version and the JDK's major version
 * Both are made in a temporary sibling and renamed into place, so two processes compiling at once
 * never see half a folder.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { cacheDir } from '../../harness/runtime/cache.ts';
import { run } from '../../harness/runtime/tools.ts';
import { probe, requireTool } from '../../harness/runtime/requirements.ts';
import { collect } from './provision.ts';
import { JDK } from './requirements.ts';

const COMPLETE = '.complete';
const JACKSON = '2.21.7';
const SLF4J = '2.0.17';

export function javaLibsDir(version: string): string {
  return join(cacheDir('kafka', version), 'java-client-libs');
}

function javaFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...javaFiles(join(dir, e.name)));
    else if (e.name.endsWith('.java')) out.push(join(dir, e.name));
  }
  return out.sort();
}

/** The jars every program uses, for kafka-clients `version` (collected once). */
export function ensureJavaLibs(version: string, log: (l: string) => void): string {
  const libs = javaLibsDir(version);
  collect(
    libs,
    [
      { g: 'org.apache.kafka', a: 'kafka-clients', v: version },
      { g: 'com.fasterxml.jackson.core', a: 'jackson-databind', v: JACKSON },
      // Declared first, so kafka-clients' older slf4j-api does not win over the binding's.
      { g: 'org.slf4j', a: 'slf4j-api', v: SLF4J },
      { g: 'org.slf4j', a: 'slf4j-simple', v: SLF4J },
    ],
    `the Java programs' jars (kafka-clients ${version})`,
    log,
  );
  return libs;
}

/** A program's classes and jars, made once per source, version and JDK; its classpath. */
/** `purpose`: what the program is for, in the missing-JDK line ("to compile convoy's Java client (client: java)"). */
export function ensureJavaProgram(p: { name: string; purpose: string; sources: string; version: string; log: (l: string) => void }): string {
  const javac = requireTool(JDK, p.purpose);
  const libs = ensureJavaLibs(p.version, p.log);
  const files = javaFiles(p.sources);
  const hash = createHash('sha256');
  hash.update(`${p.version}\0${probe(JDK).version?.split('.')[0] ?? javac}\0`);
  for (const f of files) hash.update(`${f.slice(p.sources.length)}\0`).update(readFileSync(f)).update('\0');
  const target = join(cacheDir('kafka', 'java'), hash.digest('hex').slice(0, 16));
  const classpath = `${target}:${join(libs, '*')}`;
  if (existsSync(join(target, COMPLETE))) return classpath;
  const tmp = `${target}.tmp-${process.pid}-${randomBytes(3).toString('hex')}`;
  mkdirSync(tmp, { recursive: true });
  const started = Date.now();
  try {
    run(javac, ['--release', '17', '-nowarn', '-encoding', 'UTF-8', '-d', tmp, '-cp', join(libs, '*'), ...files], { what: `compiling ${p.name}`, timeoutMs: 120_000 });
    writeFileSync(join(tmp, COMPLETE), JSON.stringify({ version: p.version, files: files.length, seconds: (Date.now() - started) / 1000 }));
    try {
      renameSync(tmp, target);
    } catch (err) {
      if (!existsSync(join(target, COMPLETE))) throw err; // another process compiled it first: use theirs
    }
    p.log(`compiled ${p.name} against kafka-clients ${p.version} in ${((Date.now() - started) / 1000).toFixed(1)} s (once per version and source)`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return classpath;
}
