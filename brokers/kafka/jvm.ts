/**
 * How the broker JVM is launched, tuned for a fast start on a small machine:
 *   - a modest heap (-Xmx512m per node) and the serial collector (2 cores, small heap);
 *   - an application class-data-sharing archive (AppCDS) of the classes a broker loads while
 *     starting, made once per Kafka version and JDK by a throwaway training start, which cuts
 *     the JVM's class loading roughly in half. A stale or unreadable archive is ignored by the
 *     JVM (-Xshare:auto), so it can only make a start faster, never break it.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { JAVA, requireTool } from '../../harness/runtime/requirements.ts';
import { LocalProcess } from '../../harness/runtime/process.ts';
import { freePorts } from '../../harness/runtime/ports.ts';
import { InfraError } from '../../harness/errors.ts';
import { sleep } from '../../harness/clock.ts';
import type { KafkaInstall } from './provision.ts';
import { brokerProperties, newClusterId, renderProperties } from './topology.ts';

export const HEAP = { min: '128m', max: '512m' };

export function javaPath(): string {
  return requireTool(JAVA, 'to run Apache Kafka');
}

/** Identifies the JDK build an archive belongs to. */
function jdkKey(java: string): string {
  const real = realpathSync(java);
  const home = dirname(dirname(real));
  const libjvm = join(home, 'lib', 'server', 'libjvm.so');
  const stamp = existsSync(libjvm) ? `${libjvm}:${statSync(libjvm).size}:${statSync(libjvm).mtimeMs}` : `${real}:${statSync(real).mtimeMs}`;
  return createHash('sha1').update(stamp).digest('hex').slice(0, 12);
}

export function cdsArchivePath(inst: KafkaInstall, java = javaPath()): string {
  return join(dirname(inst.libsDir), `broker-${jdkKey(java)}.jsa`);
}

export function brokerJvmArgs(inst: KafkaInstall, opts: { archive?: string; dumpArchive?: string } = {}): string[] {
  const args = [
    `-Xms${HEAP.min}`,
    `-Xmx${HEAP.max}`,
    '-XX:+UseSerialGC',
    '-XX:+ExitOnOutOfMemoryError',
    '-XX:-UsePerfData',
    '-Djava.awt.headless=true',
    `-Dlog4j2.configurationFile=${inst.log4jConfig}`,
  ];
  if (opts.dumpArchive) args.push(`-XX:ArchiveClassesAtExit=${opts.dumpArchive}`);
  else if (opts.archive && existsSync(opts.archive)) args.push(`-XX:SharedArchiveFile=${opts.archive}`, '-Xshare:auto');
  args.push('-cp', inst.classpath());
  return args;
}

/** Runs a short-lived Java tool (StorageTool format); InfraError with its output on failure. */
export function runJava(java: string, args: string[], what: string, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(java, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) {
        const all = `${stdout}\n${stderr}`.trim().split('\n');
        // Skip the config dump (tab-indented "key = value" lines) that Kafka prints first.
        const lines = all.filter((l) => l.trim() && !/^\t|^ \(AbstractConfig\)/.test(l));
        reject(new InfraError(`${what} failed (exit ${(err as { code?: number }).code ?? '?'}); last output lines:`, (lines.length ? lines : all).slice(-15), { cause: err }));
      } else resolve(stdout);
    });
  });
}

export function formatArgs(inst: KafkaInstall, configFile: string, clusterId: string, archive?: string): string[] {
  return [
    '-Xmx256m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-XX:-UsePerfData',
    ...(archive && existsSync(archive) ? [`-XX:SharedArchiveFile=${archive}`, '-Xshare:auto'] : []),
    `-Dlog4j2.configurationFile=${inst.log4jConfig}`,
    '-cp',
    inst.classpath(),
    'kafka.tools.StorageTool',
    'format',
    '-t',
    clusterId,
    '-c',
    configFile,
    '--ignore-formatted',
  ];
}

/**
 * Makes the AppCDS archive for this Kafka version and JDK if it is missing: starts a
 * throwaway single node with -XX:ArchiveClassesAtExit, waits for "Kafka Server started",
 * stops it with SIGTERM (the archive is written at exit) and renames the archive into place.
 * Safe to run from two processes at once (temporary names, rename). Failure is not fatal.
 */
export async function ensureCdsArchive(inst: KafkaInstall, log: (l: string) => void): Promise<string | undefined> {
  const java = javaPath();
  const archive = cdsArchivePath(inst, java);
  if (existsSync(archive)) return archive;
  const started = Date.now();
  const dir = join(dirname(inst.libsDir), `.cds-train-${process.pid}-${randomBytes(3).toString('hex')}`);
  const tmpArchive = `${dir}.jsa`;
  mkdirSync(dir, { recursive: true });
  let proc: LocalProcess | undefined;
  try {
    const [client, internal, controller] = await freePorts(3);
    const node = {
      id: 1,
      bindClient: `127.0.0.1:${client}`,
      bindInternal: `127.0.0.1:${internal}`,
      bindController: `127.0.0.1:${controller}`,
      internal: `127.0.0.1:${internal}`,
      controller: `127.0.0.1:${controller}`,
      advertisedClient: `127.0.0.1:${client}`,
    };
    const config = join(dir, 'server.properties');
    writeFileSync(config, renderProperties(brokerProperties(node, { nodes: [node], logDir: () => join(dir, 'data') })));
    await runJava(java, formatArgs(inst, config, newClusterId()), 'formatting the CDS training node');
    const logFile = join(dir, 'kafka.log');
    proc = LocalProcess.start({
      name: 'kafka (CDS training)',
      command: java,
      args: [...brokerJvmArgs(inst, { dumpArchive: tmpArchive }), 'kafka.Kafka', config],
      logFile,
    });
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline && proc.running) {
      if (existsSync(logFile) && readFileSync(logFile, 'utf8').includes('Kafka Server started')) break;
      await sleep(100);
    }
    await proc.stop('SIGTERM', 30_000);
    if (existsSync(tmpArchive) && statSync(tmpArchive).size > 1_000_000) {
      renameSync(tmpArchive, archive);
      log(`made a class-data-sharing archive for Kafka ${inst.version} in ${((Date.now() - started) / 1000).toFixed(1)} s (once per version and JDK)`);
      return archive;
    }
    log('no class-data-sharing archive was written; brokers start without one');
    return undefined;
  } catch (err) {
    log(`class-data-sharing archive not made (${(err as Error).message}); brokers start without one`);
    await proc?.stop('SIGKILL');
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(tmpArchive, { force: true });
  }
}

/**
 * `StorageTool format` for a static KRaft quorum writes meta.properties and one bootstrap
 * checkpoint in __cluster_metadata-0 whose bytes depend only on the Kafka version's default
 * features (node id and cluster id live in meta.properties; only timestamps differ between
 * runs). So one format per version, kept in the cache, replaces a JVM launch per node and
 * start. Used only when the scenario passes no brokerConfig (which could change the features).
 */
const TEMPLATE = 'kraft-bootstrap';

export async function ensureBootstrapTemplate(inst: KafkaInstall, log: (l: string) => void): Promise<string | undefined> {
  const target = join(dirname(inst.libsDir), TEMPLATE);
  if (existsSync(join(target, '.complete'))) return target;
  const dir = join(dirname(inst.libsDir), `.format-${process.pid}-${randomBytes(3).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  try {
    const [a, b, c] = await freePorts(3);
    const node = {
      id: 1,
      bindClient: `127.0.0.1:${a}`,
      bindInternal: `127.0.0.1:${b}`,
      bindController: `127.0.0.1:${c}`,
      internal: `127.0.0.1:${b}`,
      controller: `127.0.0.1:${c}`,
      advertisedClient: `127.0.0.1:${a}`,
    };
    const config = join(dir, 'server.properties');
    writeFileSync(config, renderProperties(brokerProperties(node, { nodes: [node], logDir: () => join(dir, 'data') })));
    await runJava(javaPath(), formatArgs(inst, config, newClusterId()), 'formatting a KRaft bootstrap template');
    const meta = join(dir, 'data', '__cluster_metadata-0');
    const files = readdirSync(meta);
    if (files.length !== 1 || !files[0]!.endsWith('.checkpoint')) {
      log(`KRaft format wrote ${files.join(', ')}; not using a template (every start formats)`);
      return undefined;
    }
    writeFileSync(join(meta, '.complete'), files[0]!);
    try {
      renameSync(meta, target);
    } catch {
      if (!existsSync(join(target, '.complete'))) throw new Error(`could not place ${target}`);
    }
    return target;
  } catch (err) {
    log(`no KRaft bootstrap template (${(err as Error).message}); every start formats its storage`);
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A formatted log dir without a JVM: the version's bootstrap checkpoint plus meta.properties. */
export function formatFromTemplate(template: string, logDir: string, nodeId: number, clusterId: string): void {
  const checkpoint = readFileSync(join(template, '.complete'), 'utf8').trim();
  const meta = join(logDir, '__cluster_metadata-0');
  mkdirSync(meta, { recursive: true });
  copyFileSync(join(template, checkpoint), join(meta, checkpoint));
  writeFileSync(
    join(logDir, 'meta.properties'),
    `#\n#written by convoy\nnode.id=${nodeId}\ndirectory.id=${newClusterId()}\nversion=1\ncluster.id=${clusterId}\n`,
  );
}
