/** A broker that cannot start: an InfraError carrying its log lines, and nothing left running. */
// @needs own kafka beside
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InfraError } from '../../../harness/errors.ts';
import { liveChildren, startKafka } from './helpers.ts';

async function expectFailure(brokerConfig: Record<string, string>, message: RegExp, line: RegExp): Promise<void> {
  await assert.rejects(startKafka({ brokerConfig }), (err: unknown) => {
    assert.ok(err instanceof InfraError, `expected InfraError, got ${String(err)}`);
    assert.equal(err.exitCode, 3);
    assert.match(err.message, message);
    assert.ok(
      err.detail.some((l) => line.test(l)),
      `the broker's own explanation is among the detail lines:\n${err.detail.join('\n')}`,
    );
    return true;
  });
  assert.deepEqual(liveChildren(), [], 'no broker JVM and no Toxiproxy left running');
}

test('the broker JVM exits during start-up (unknown authorizer class)', async () => {
  await expectFailure({ 'authorizer.class.name': 'no.such.Authorizer' }, /kafka node-1 exited during start-up/, /ClassNotFoundException: no\.such\.Authorizer/);
});

test('storage formatting rejects a malformed setting before any broker starts', async () => {
  await expectFailure({ 'num.io.threads': 'abc' }, /formatting Kafka node-1 storage failed/, /Invalid value abc for configuration num\.io\.threads/);
});
