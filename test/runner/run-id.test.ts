import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newRunId } from '../../harness/runner/run-id.ts';

const at = new Date('2026-12-02T10:20:30Z');

test('a run id is the slug, the UTC time and 4 hex digits', () => {
  assert.match(newRunId('Kafka Orders: stall!', at), /^kafka-orders-stall-20261202-102030-[0-9a-f]{4}$/);
});

test('twins whose names differ only at the end get different folders', () => {
  const a = newRunId('rabbitmq-quorum-delivery-limit-prefetch', at).replace(/-[0-9a-f]{4}$/, '');
  const b = newRunId('rabbitmq-quorum-delivery-limit-prefetch-discard', at).replace(/-[0-9a-f]{4}$/, '');
  assert.notEqual(a, b);
  assert.ok(b.startsWith('rabbitmq-quorum-delivery-limit-prefetch-discard-'));
});

test('a very long name keeps its start and its end, within 64 characters', () => {
  const name = `kafka-${'x'.repeat(80)}-control`;
  const slug = newRunId(name, at).replace(/-20261202-102030-[0-9a-f]{4}$/, '');
  assert.ok(slug.length <= 64, slug);
  assert.ok(slug.startsWith('kafka-x'));
  assert.ok(slug.endsWith('-control'));
});

test('a name with no usable character still gives an id', () => {
  assert.match(newRunId('!!!', at), /^run-20261202-102030-/);
});
