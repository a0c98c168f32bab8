/** Validators cached as ajv's standalone code (harness/scenario/compiled.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { compileCached } from '../../harness/scenario/compiled.ts';

const OPTIONS = { allErrors: true, verbose: true, code: { source: true } };
const SCHEMA = {
  type: 'object',
  properties: { rate: { type: 'integer', minimum: 1 }, mode: { enum: ['queue', 'partitioned'] } },
  required: ['rate'],
  additionalProperties: false,
};
const BAD = { rate: 0, mode: 'stream', colour: 'red' };

/** Runs `body` with CONVOY_CACHE set to `cache`, then puts it back. */
function withCache(cache: string, body: () => void): void {
  const before = process.env.CONVOY_CACHE;
  process.env.CONVOY_CACHE = cache;
  try {
    body();
  } finally {
    if (before === undefined) delete process.env.CONVOY_CACHE;
    else process.env.CONVOY_CACHE = before;
  }
}

/** An ajv factory that counts how often it was asked to compile. */
function counted(): { make: () => Ajv2020; compiles: () => number } {
  let n = 0;
  return {
    make: () => {
      n++;
      return new Ajv2020(OPTIONS);
    },
    compiles: () => n,
  };
}

test('a cached validator is made once, then loaded, and says what the compiled one says', () => {
  const cache = mkdtempSync(join(tmpdir(), 'convoy-ajv-cache-'));
  withCache(cache, () => {
    const { make, compiles } = counted();
    const compiled = compileCached(make, OPTIONS, SCHEMA);
    const dir = join(cache, 'ajv');
    const files = readdirSync(dir);
    assert.equal(files.length, 1);
    const loaded = compileCached(make, OPTIONS, SCHEMA);
    assert.equal(compiles(), 1, 'the second process (here: call) loads the cached code');
    assert.equal(loaded(BAD), false);
    assert.equal(compiled(BAD), false);
    assert.deepEqual(loaded.errors, compiled.errors);
    assert.equal(loaded.errors!.length, 3);
    assert.equal(loaded({ rate: 5 }), true);
    assert.deepEqual(loaded.schema, SCHEMA);
    // Other options or another schema: another validator.
    compileCached(make, { ...OPTIONS, allErrors: false }, SCHEMA);
    assert.equal(compiles(), 2);
    // A file that cannot run is compiled and written again.
    writeFileSync(join(dir, files[0]!), 'module.exports = ');
    const again = compileCached(make, OPTIONS, SCHEMA);
    assert.equal(compiles(), 3);
    assert.equal(again(BAD), false);
    compileCached(make, OPTIONS, SCHEMA);
    assert.equal(compiles(), 3, 'the rewritten file loads');
  });
});

test('with no usable cache (CONVOY_CACHE is a file, so no folder can be made there) validators are compiled every time and still work', () => {
  const notADir = join(mkdtempSync(join(tmpdir(), 'convoy-ajv-nocache-')), 'file');
  writeFileSync(notADir, 'not a folder');
  withCache(notADir, () => {
    const { make, compiles } = counted();
    const v = compileCached(make, OPTIONS, SCHEMA);
    assert.equal(v(BAD), false);
    assert.equal(v.errors!.length, 3);
    assert.equal(compileCached(make, OPTIONS, SCHEMA)({ rate: 5 }), true);
    assert.equal(compiles(), 2, 'nothing cached, nothing thrown');
  });
});
