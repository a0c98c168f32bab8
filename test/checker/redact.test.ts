/**
 * Secrets inside strings (harness/checker/redact.ts): a URL's password is hidden wherever the URL
 * sits, and a long text without one passes through whole. A URL's scheme was once unbounded: every
 * letter of a long word started a scan to the word's end, so a 200,000-letter description took
 * `convoy validate --print` 45 s. The long cases run in a child process with a 30 s bound, as a
 * hang guard: a synchronous scan cannot be stopped by the test's own timeout (they take a few ms).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { REDACTED, redactString } from '../../harness/checker/redact.ts';

test('a URL\'s password is hidden, wherever the URL sits', () => {
  assert.equal(redactString('amqp://guest:s3cret@10.0.0.4:5672/'), `amqp://guest:${REDACTED}@10.0.0.4:5672/`);
  assert.equal(redactString('see svc+https://u:pw@host/x'), `see svc+https://u:${REDACTED}@host/x`);
  assert.equal(redactString(`${'b'.repeat(100)}amqp://u:topsecret@h/`).endsWith(`:${REDACTED}@h/`), true, 'a scheme glued to a word');
});

test('a 200,000-letter word passes through whole, and a URL after it is still redacted, without a scan per letter', () => {
  const script = `
    import { redactString } from ${JSON.stringify(new URL('../../harness/checker/redact.ts', import.meta.url).href)};
    const word = 'a'.repeat(200_000);
    const alone = redactString(word) === word;
    const after = redactString(word + ' amqp://u:topsecret@h/') === word + ' amqp://u:***@h/';
    console.log(JSON.stringify({ alone, after }));`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.signal, null, 'finished, not stopped by the 30 s bound');
  assert.deepEqual(JSON.parse(r.stdout), { alone: true, after: true }, r.stderr);
});
