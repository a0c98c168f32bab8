/** The payload codec against its published test vectors (docs/codec-vectors.json), both ways. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decodeMessage, encodeMessage } from '../../harness/workload/codec.ts';

const { vectors } = JSON.parse(readFileSync(new URL('../../docs/codec-vectors.json', import.meta.url), 'utf8')) as {
  vectors: { name: string; hex: string; decoded: Record<string, unknown> & { size: number } }[];
};

test('each vector decodes to its fields, and its fields encode to its bytes', () => {
  assert.ok(vectors.length >= 3);
  for (const v of vectors) {
    // JSON has no undefined: a field the payload lacks is absent from the vector.
    assert.deepEqual(JSON.parse(JSON.stringify(decodeMessage(Buffer.from(v.hex, 'hex')))), v.decoded, v.name);
    const { size, ...fields } = v.decoded;
    assert.equal(encodeMessage(fields as never, size).toString('hex'), v.hex, v.name);
  }
});

test('a vector with one byte changed is not a payload (its checksum)', () => {
  const bytes = Buffer.from(vectors[0]!.hex, 'hex');
  bytes[13] ^= 0x01; // the seq
  assert.equal(decodeMessage(bytes), null);
});
