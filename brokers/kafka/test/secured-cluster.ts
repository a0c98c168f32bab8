/**
 * A 3-node KRaft cluster that convoy's runtime did not start, secured as a team's own would be:
 * clients log in on a SASL_PLAINTEXT listener (SCRAM-SHA-512, or OAUTHBEARER with unsecured
 * JWTs), StandardAuthorizer allows only what ACLs grant, and the SCRAM users are written at
 * format time. It reuses convoy's installed Kafka jars, JDK and start-up pieces (topology, JVM
 * arguments, one format copied to every node), with the brokers' small heaps.
 */
import { readdirSync, writeFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { provisionDefault } from '../provision.ts';
import { brokerJvmArgs, cdsArchivePath, formatArgs, formatFromTemplate, javaPath, runJava } from '../jvm.ts';
import { brokerProperties, newClusterId, renderProperties, type NodeAddresses } from '../topology.ts';
import { freePorts } from '../../../harness/runtime/ports.ts';
import { LocalProcess } from '../../../harness/runtime/process.ts';
import { describeCluster } from '../probe.ts';
import type { KafkaEndpoint } from '../endpoint.ts';

const { Kafka, logLevel } = kafkajs;
const HOST = '127.0.0.1';

export interface SecuredCluster {
  bootstrap: string;
  /** The super user's endpoint (SCRAM-SHA-512 user admin). */
  admin: KafkaEndpoint;
  ms: number;
  stop(): Promise<void>;
}

/** users: name → password, every one a SCRAM-SHA-512 user; `admin` is the super user. */
export async function startSecuredCluster(users: Record<string, string>): Promise<SecuredCluster> {
  const t0 = Date.now();
  const inst = provisionDefault();
  const java = javaPath();
  const archive = cdsArchivePath(inst, java);
  const dir = mkdtempSync(join(tmpdir(), 'convoy-secured-kafka-'));
  const ports = await freePorts(9, HOST);
  const nodes: NodeAddresses[] = [0, 1, 2].map((i) => {
    const [client, internal, controller] = ports.slice(i * 3, i * 3 + 3);
    return {
      id: i + 1,
      bindClient: `${HOST}:${client}`,
      bindInternal: `${HOST}:${internal}`,
      bindController: `${HOST}:${controller}`,
      internal: `${HOST}:${internal}`,
      controller: `${HOST}:${controller}`,
      advertisedClient: `${HOST}:${client}`,
    };
  });
  const extra = {
    'listener.security.protocol.map': 'CLIENT:SASL_PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'listener.name.client.sasl.enabled.mechanisms': 'SCRAM-SHA-512,OAUTHBEARER',
    'listener.name.client.scram-sha-512.sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required;',
    // Kafka's default OAUTHBEARER validator takes unsecured JWTs (alg none): for tests only.
    'listener.name.client.oauthbearer.sasl.jaas.config': 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="admin";',
    'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    // The brokers and controllers reach each other on PLAINTEXT listeners no client is given.
    'super.users': 'User:admin;User:ANONYMOUS',
  };
  const dataDir = (id: number) => join(dir, `node-${id}`, 'data');
  const procs: LocalProcess[] = [];
  const stop = async () => {
    await Promise.all(procs.map((p) => p.stop('SIGKILL').catch(() => {})));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const n of nodes) {
      mkdirSync(join(dir, `node-${n.id}`), { recursive: true });
      writeFileSync(join(dir, `node-${n.id}`, 'server.properties'), renderProperties(brokerProperties(n, { nodes, logDir: () => dataDir(n.id), extra })));
    }
    // One format, with the SCRAM users; its bootstrap checkpoint copied to the other nodes.
    const clusterId = newClusterId();
    const scram = Object.entries(users).flatMap(([name, password]) => ['--add-scram', `SCRAM-SHA-512=[name=${name},password=${password}]`]);
    await runJava(java, [...formatArgs(inst, join(dir, 'node-1', 'server.properties'), clusterId, archive), ...scram], 'formatting the secured cluster');
    const meta = join(dataDir(1), '__cluster_metadata-0');
    const checkpoint = readdirSync(meta).find((f) => f.endsWith('.checkpoint'))!;
    writeFileSync(join(meta, '.complete'), checkpoint);
    for (const n of nodes.slice(1)) formatFromTemplate(meta, dataDir(n.id), n.id, clusterId);
    rmSync(join(meta, '.complete'));
    for (const n of nodes) {
      procs.push(
        LocalProcess.start({
          name: `secured kafka ${n.id}`,
          command: java,
          args: [...brokerJvmArgs(inst, { archive }), 'kafka.Kafka', join(dir, `node-${n.id}`, 'server.properties')],
          logFile: join(dir, `node-${n.id}`, 'kafka.log'),
        }),
      );
    }
    const bootstrap = nodes.map((n) => n.advertisedClient).join(',');
    const admin: KafkaEndpoint = { bootstrapServers: bootstrap.split(','), sasl: { mechanism: 'scram-sha-512', username: 'admin', password: users.admin! } };
    // Every node answers on its own client listener and sees all three.
    await Promise.all(procs.map((p, i) => p.waitHealthy(async () => (await describeCluster({ ...admin, bootstrapServers: [nodes[i]!.advertisedClient] }, 2_000)).brokers.length === 3, 90_000)));
    return { bootstrap, admin, ms: Date.now() - t0, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

export type Acl = { resource: 'topic' | 'group' | 'cluster'; name: string; prefixed?: boolean; principal: string; operations: string[] };

/** A kafkajs admin client of the super user, for one job. */
async function asSuperUser<T>(admin: KafkaEndpoint, job: (client: kafkajs.Admin) => Promise<T>): Promise<T> {
  const client = new Kafka({ brokers: admin.bootstrapServers, sasl: admin.sasl as never, clientId: 'secured-cluster-setup', logLevel: logLevel.NOTHING }).admin();
  await client.connect();
  try {
    return await job(client);
  } finally {
    await client.disconnect();
  }
}

/** Creates ACLs (ALLOW, any host) as the super user. */
export function createAcls(admin: KafkaEndpoint, acls: Acl[]): Promise<void> {
  const { AclResourceTypes, AclOperationTypes, AclPermissionTypes, ResourcePatternTypes } = kafkajs;
  const acl = acls.flatMap((a) =>
    a.operations.map((op) => ({
      resourceType: AclResourceTypes[a.resource.toUpperCase() as 'TOPIC'],
      resourceName: a.name,
      resourcePatternType: a.prefixed ? ResourcePatternTypes.PREFIXED : ResourcePatternTypes.LITERAL,
      principal: a.principal,
      host: '*',
      operation: AclOperationTypes[op as 'READ'],
      permissionType: AclPermissionTypes.ALLOW,
    })),
  );
  return asSuperUser(admin, async (c) => void (await c.createAcls({ acl })));
}

/** Creates a topic as the super user (a pre-created topic). */
export function createTopic(admin: KafkaEndpoint, topic: string, partitions: number): Promise<void> {
  return asSuperUser(admin, async (c) => void (await c.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true })));
}

/** The topics whose name starts with `prefix`, as the super user sees them. */
export function listTopics(admin: KafkaEndpoint, prefix: string): Promise<string[]> {
  return asSuperUser(admin, async (c) => (await c.listTopics()).filter((t) => t.startsWith(prefix)).sort());
}
