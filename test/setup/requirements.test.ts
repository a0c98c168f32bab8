/**
 * The requirements registry: what the local runtime needs is declared, probed with its version,
 * installed as root or explained in one line with the fix. Programs are faked on PATH (a Java
 * that says it is 11); packages and apt-get are real except where a failing apt is the point.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brokerNames, loadBroker } from '../../harness/broker/registry.ts';
import { InfraError } from '../../harness/errors.ts';
import {
  compareVersions, defineRequirement, JAVA, onPath, printedVersion, probe, requireTool, type Requirement,
} from '../../harness/runtime/requirements.ts';
import { ensureRequirements } from '../../harness/setup/install.ts';
import { needsOf } from '../../harness/setup/setup.ts';
import { LIBRDKAFKA_BUILD } from '../../brokers/kafka/requirements.ts';
import { TOXIPROXY } from '../../harness/net/toxiproxy.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** A folder with executable scripts, put first on PATH while `fn` runs. */
function withFakePrograms<T>(programs: Record<string, string>, fn: () => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'convoy-fakebin-'));
  for (const [name, body] of Object.entries(programs)) {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  }
  const old = process.env.PATH;
  process.env.PATH = `${dir}:${old}`;
  try {
    return fn();
  } finally {
    process.env.PATH = old;
  }
}

/** A requirement for a program that no machine has, from a Debian package that does not exist. */
function absent(source: Requirement['source']): Requirement {
  return defineRequirement({
    name: 'convoy-test-absent',
    what: 'a program for the tests',
    source,
    locate: onPath('convoy-test-absent-program'),
    version: printedVersion(['--version'], /(\d+\.\d+)/),
  });
}

const quiet = () => {};

describe('requirements', () => {
  test('versions compare numerically, part by part', () => {
    assert.equal(compareVersions('17.0.15', '17'), 1);
    assert.equal(compareVersions('1.9', '1.26'), -1);
    assert.equal(compareVersions('3.10.8', '3.10'), 1);
    assert.equal(compareVersions('1.26.0', '1.26'), 0);
  });

  test('a Java older than the minimum is found, read and refused with its fix', () => {
    const p = withFakePrograms({ java: 'echo \'openjdk version "11.0.2" 2019-01-15\' >&2' }, () => probe(JAVA));
    assert.equal(p.ok, false);
    assert.equal(p.version, '11.0.2');
    assert.match(p.problem!, /11\.0\.2 is older than 17/);
    const err = withFakePrograms({ java: 'echo \'openjdk version "11.0.2"\' >&2' }, () => {
      try {
        // A fresh requirement object: requireTool remembers requirements it has found.
        requireTool({ ...JAVA }, 'to run Apache Kafka');
        return undefined;
      } catch (e) {
        return e;
      }
    });
    assert.ok(err instanceof InfraError);
    assert.equal(err.message.split('\n').length, 1);
    assert.match(err.message, /^java: 11\.0\.2 is older than 17 \(needed to run Apache Kafka\); fix: .*apt-get install -y openjdk-17-jre-headless/);
  });

  test('a missing Debian package without leave to install names the one command, and installs nothing', () => {
    const req = absent({ kind: 'debian', packages: ['convoy-no-such-package'] });
    assert.throws(
      () => ensureRequirements([{ requirement: req, purpose: 'for the test', by: 'broker test' }], quiet, { command: '/bin/false', mayInstall: false }),
      (e: unknown) =>
        e instanceof InfraError &&
        e.message.includes('convoy-test-absent (missing)') &&
        e.message.includes('as root: apt-get update && apt-get install -y convoy-no-such-package') &&
        e.detail.some((l) => l.includes('needed by broker test: for the test')),
    );
  });

  test('a failing apt-get gives one line with the fix and the tail of its output', () => {
    const req = absent({ kind: 'debian', packages: ['convoy-no-such-package'] });
    const dir = mkdtempSync(join(tmpdir(), 'convoy-apt-'));
    const apt = join(dir, 'apt-get');
    writeFileSync(apt, '#!/bin/sh\necho "E: Failed to fetch http://deb.debian.org/debian  Temporary failure resolving" >&2\nexit 100\n');
    chmodSync(apt, 0o755);
    assert.throws(
      () => ensureRequirements([{ requirement: req, purpose: 'for the test', by: 'broker test' }], quiet, { command: apt, mayInstall: true }),
      (e: unknown) =>
        e instanceof InfraError &&
        /^apt-get update failed \(is the Debian mirror reachable\?\); fix it, then run as root: apt-get update && apt-get install -y convoy-no-such-package$/.test(e.message) &&
        e.detail.some((l) => l.includes('Temporary failure resolving')),
    );
  });

  test('a missing toolchain is explained with where to get it (convoy does not install it)', () => {
    const req = absent({ kind: 'toolchain', name: 'Test 1.0+', how: 'from https://example.invalid' });
    assert.throws(
      () => ensureRequirements([{ requirement: req, purpose: 'for the test', by: 'harness' }], quiet, { command: '/bin/false', mayInstall: true }),
      (e: unknown) => e instanceof InfraError && e.message.includes('fix: Test 1.0+: from https://example.invalid'),
    );
  });

  test('what is present passes without calling apt-get', () => {
    const req = defineRequirement({ name: 'sh', what: 'a shell', source: { kind: 'debian', packages: ['dash'] }, locate: onPath('sh'), version: () => 'present' });
    ensureRequirements([{ requirement: req, purpose: 'x', by: 'y' }], quiet, { command: '/bin/false', mayInstall: true });
  });
});

describe('what the modules declare', () => {
  test('RabbitMQ declares its Debian package, so setup installs it (regression: it was never installed)', async () => {
    const needs = needsOf([await loadBroker('rabbitmq')], false);
    const debs = needs.flatMap((n) => (n.requirement.source.kind === 'debian' ? n.requirement.source.packages : []));
    assert.ok(debs.includes('rabbitmq-server'), `rabbitmq needs: ${debs.join(', ')}`);
  });

  test('every broker that runs a JVM or Go program locally declares it', async () => {
    const declared = async (name: string) => needsOf([await loadBroker(name)], false).map((n) => n.requirement.name);
    assert.ok((await declared('kafka')).includes('java') && (await declared('kafka')).includes('mvn'));
    assert.ok((await declared('sqs')).includes('java') && (await declared('sqs')).includes('mvn'));
    assert.ok((await declared('pubsub')).includes('go'));
    // Every broker whose client connections go through a private Toxiproxy needs Go to build it.
    for (const b of brokerNames()) {
      const mod = await loadBroker(b);
      if (mod.testDouble) continue;
      assert.ok(mod.requirements?.includes(TOXIPROXY), `${b} does not declare Toxiproxy`);
    }
  });

  test('bin/bootstrap.sh installs exactly the librdkafka build packages the kafka module declares', () => {
    const script = readFileSync(join(ROOT, 'bin', 'bootstrap.sh'), 'utf8');
    const listed = /need_dev=\(([^)]*)\)/.exec(script)?.[1]?.trim().split(/\s+/);
    assert.ok(LIBRDKAFKA_BUILD.source.kind === 'debian');
    assert.deepEqual(listed, LIBRDKAFKA_BUILD.source.packages);
  });
});
