/**
 * A broker endpoint on the runner's loopback, which agents on other hosts cannot reach: found in
 * each broker's endpoint shape (URLs, host:port lists), and only when some agent is elsewhere.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loopbackEndpointHost } from '../../harness/runner/loopback-endpoint.ts';
import { agentPlacements } from '../../harness/runner/placement.ts';

const elsewhere = agentPlacements(['producers=10.0.0.2:7411', 'consumers=10.0.0.3:7411']);

test('a loopback host in a URL, a bootstrap list or a nested field is found when an agent is on another host', () => {
  assert.equal(loopbackEndpointHost({ url: 'amqp://guest:guest@127.0.0.1:40123/' }, elsewhere), '127.0.0.1');
  assert.equal(loopbackEndpointHost({ bootstrapServers: 'kafka-1:9092,localhost:9093' }, elsewhere), 'localhost');
  assert.equal(loopbackEndpointHost({ admin: { urls: ['http://[::1]:8080'] } }, elsewhere), '[::1]');
  assert.equal(loopbackEndpointHost({ url: 'amqp://guest:guest@127.0.0.1:40123/' }, agentPlacements(['consumers=here', 'producers=10.0.0.2:7411'])), '127.0.0.1');
});

test('a broker the agents can reach, or agents on loopback themselves, or no endpoint: nothing found', () => {
  assert.equal(loopbackEndpointHost({ url: 'amqp://guest:guest@10.0.0.4:5672/', queue: 'orders' }, elsewhere), undefined);
  assert.equal(loopbackEndpointHost({ bootstrapServers: 'kafka-1.staging:9093,127-0-0-1.example:9093' }, elsewhere), undefined);
  assert.equal(loopbackEndpointHost({ url: 'amqp://guest:guest@127.0.0.1:40123/' }, agentPlacements(['127.0.0.1:7411', 'consumers=localhost:7412'])), undefined);
  assert.equal(loopbackEndpointHost(undefined, elsewhere), undefined);
});
