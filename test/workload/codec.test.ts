import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decode, encode, encodedSize, HEADER_BYTES, type MessageFields } from '../../harness/workload/codec.ts';
import { entityEvent } from '../../harness/workload/entity.ts';

const base: MessageFields = { producer: 'orders', key: 'k17', seq: 3, entity: 'order', intendedUs: 1_712_345_678_901_234, poison: false };

test('round trip: every field comes back, padded to the requested size', () => {
  const buf = encode(base, 512);
  assert.equal(buf.length, 512);
  assert.deepEqual(decode(buf), { ...base, event: 'SHIPPED', size: 512 });
  const poisoned = decode(encode({ ...base, poison: true, intendedUs: null }, 0));
  assert.equal(poisoned?.poison, true);
  assert.equal(poisoned?.intendedUs, undefined);
  assert.equal(poisoned?.size, encodedSize(base, 0));
  assert.equal(encodedSize(base, 0), HEADER_BYTES + 'orders'.length + 'k17'.length + 'SHIPPED'.length);
});

test('a message never shrinks below its header; sizes above are exact', () => {
  assert.equal(encode(base, 10).length, encodedSize(base, 10));
  assert.equal(encode(base, 100_000).length, 100_000);
});

test('property: any fields round-trip', () => {
  fc.assert(
    fc.property(
      fc.record({
        // ASCII (the usual keys, written byte by byte) and any Unicode (written as UTF-8).
        producer: fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 10 })),
        key: fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 40 })),
        seq: fc.integer({ min: 0, max: 0xffffffff }),
        entity: fc.constantFrom('order' as const, 'wallet' as const, 'counter' as const),
        intendedUs: fc.option(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), { nil: null }),
        poison: fc.boolean(),
      }),
      fc.integer({ min: 0, max: 4096 }),
      (f, size) => {
        const d = decode(encode(f, size));
        assert.ok(d);
        assert.equal(d.producer, f.producer);
        assert.equal(d.key, f.key);
        assert.equal(d.seq, f.seq);
        assert.equal(d.entity, f.entity);
        assert.equal(d.intendedUs, f.intendedUs ?? undefined);
        assert.equal(d.poison, f.poison);
        assert.equal(d.event, entityEvent(f.entity, f.seq));
      },
    ),
  );
});

test('garbage decodes to null, never throws', () => {
  assert.equal(decode(null), null);
  assert.equal(decode(Buffer.alloc(0)), null);
  assert.equal(decode(Buffer.from('{"key":"k1","seq":1}')), null);
  assert.equal(decode(Buffer.alloc(100)), null);
  const good = encode(base, 64);
  assert.equal(decode(good.subarray(0, 30)), null, 'truncated');
  for (const at of [0, 2, 3, 4, 5, 8, 12, 16, 24, 28, 31]) {
    const bad = Buffer.from(good);
    bad[at] ^= 0x40;
    assert.equal(decode(bad), null, `flipped byte ${at}`);
  }
  // Padding is not covered: a flipped padding byte still decodes.
  const padded = Buffer.from(good);
  padded[60] ^= 1;
  assert.ok(decode(padded));
  fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => decode(bytes) === null));
});

test('a service stamp rides after the names, is checksummed, and is absent when not given', () => {
  const stamped = { ...base, stampMs: 1_764_633_600_123 };
  const buf = encode(stamped, 0);
  assert.equal(buf.length, encodedSize(stamped, 0));
  assert.equal(buf.length, encodedSize(base, 0) + 8);
  assert.equal(decode(buf)?.stampMs, 1_764_633_600_123);
  assert.equal(decode(encode(stamped, 256))?.stampMs, 1_764_633_600_123);
  assert.equal('stampMs' in decode(encode(base, 0))!, false);
  const flipped = Buffer.from(buf);
  flipped[buf.length - 1] ^= 1;
  assert.equal(decode(flipped), null, 'a changed stamp fails the checksum');
});

test('a run id rides after the stamp (a destination runs share), is checksummed, and counts in the size', () => {
  const run = 'orders-20261205-101500-ab12';
  const fields = { ...base, stampMs: 1_700_000_000_123, run };
  const buf = encode(fields, 0);
  assert.equal(buf.length, encodedSize(fields, 0));
  assert.deepEqual(decode(buf), { ...fields, event: 'SHIPPED', size: buf.length });
  assert.equal(decode(encode({ ...base, run }, 200))?.run, run);
  assert.equal(decode(encode(base, 200))?.run, undefined);
  const flipped = Buffer.from(buf);
  flipped[buf.length - 1] ^= 1; // the run id's last byte
  assert.equal(decode(flipped), null);
});

test('names decoded in turn come back right when they repeat, change, or share a length (the last-name reuse)', () => {
  const names = ['orders', 'orders', 'refund', 'orders', 'ordérs', 'o', 'orders', 'refund', 'refund'];
  names.forEach((producer, i) => {
    const seq = (i % 4) + 1;
    const d = decode(encode({ ...base, producer, seq }, 64));
    assert.equal(d?.producer, producer);
    assert.equal(d?.event, entityEvent('order', seq));
  });
});
