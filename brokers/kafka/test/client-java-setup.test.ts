/**
 * client: java on a machine without a JDK: one clear line that names what is missing and how to
 * get it (exit 3), before anything is collected or started.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EXIT, InfraError } from '../../../harness/errors.ts';
import { javaClientCommand } from '../client-java.ts';
import { resolveSettings } from '../settings.ts';

test('client java without javac on the PATH: one line naming the JDK package, exit 3', () => {
  const path = process.env.PATH;
  process.env.PATH = '/nonexistent';
  try {
    assert.throws(
      () => javaClientCommand(resolveSettings({ kind: 'kafka', client: 'java', version: '4.4.0' })),
      (e: unknown) => {
        assert.ok(e instanceof InfraError, String(e));
        assert.equal(e.exitCode, EXIT.infrastructure);
        assert.match(e.message, /^javac: missing \(needed to compile convoy's Java client \(client: java\)\); fix: .*openjdk-17-jdk-headless/);
        assert.doesNotMatch(e.message, /\n/);
        return true;
      },
    );
  } finally {
    process.env.PATH = path;
  }
});
