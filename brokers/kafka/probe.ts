/**
 * Health probe: ask the cluster for its metadata through the same path clients use (the
 * Toxiproxy proxies), with kafkajs's admin client, short timeouts and no retries.
 */
import kafkajs from 'kafkajs';
import { kafkajsConnection, type KafkaEndpoint } from './endpoint.ts';

const { Kafka, logLevel } = kafkajs;

export interface ClusterView {
  clusterId: string;
  controller: number | null;
  brokers: { nodeId: number; host: string; port: number }[];
}

export async function describeCluster(endpoint: KafkaEndpoint, timeoutMs = 3_000): Promise<ClusterView> {
  const kafka = new Kafka({
    ...kafkajsConnection(endpoint),
    clientId: 'convoy-probe',
    connectionTimeout: Math.min(timeoutMs, 2_000),
    requestTimeout: timeoutMs,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    return (await admin.describeCluster()) as ClusterView;
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

/**
 * True when every expected node is registered (and unfenced: fenced brokers are left out of
 * metadata) and advertises the address we expect for it (its proxy), when given.
 */
export async function clusterHealthy(endpoint: KafkaEndpoint, expect: { nodeId: number; address?: string }[]): Promise<boolean> {
  const view = await describeCluster(endpoint);
  return expect.every((e) => {
    const b = view.brokers.find((x) => x.nodeId === e.nodeId);
    return !!b && (!e.address || `${b.host}:${b.port}` === e.address);
  });
}
