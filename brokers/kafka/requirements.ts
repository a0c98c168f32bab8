/**
 * What local Kafka needs from the machine. Java runs the brokers and tools, Maven collects
 * their jars. The librdkafka client (@confluentinc/kafka-javascript) is built at `npm ci`
 * against Debian's -dev packages; ./convoy's bootstrap (bin/bootstrap.sh) installs them
 * before node runs, so its list must stay this one (a test checks it).
 */
import { TOXIPROXY } from '../../harness/net/toxiproxy.ts';
import { debianPackages, defineRequirement, JAVA, MAVEN, onPath, printedVersion, type Need } from '../../harness/runtime/requirements.ts';

export const LIBRDKAFKA_BUILD = debianPackages(
  'librdkafka-build',
  'the -dev packages the librdkafka client builds against',
  ['libssl-dev', 'zlib1g-dev', 'libzstd-dev', 'libsasl2-dev', 'libcurl4-openssl-dev', 'liblz4-dev'],
);

/** The Java compiler: convoy's Java client (client: java) is compiled on first use. */
export const JDK = defineRequirement({
  name: 'javac',
  what: 'a Java compiler (JDK), for the Java Kafka client',
  minVersion: '17',
  source: { kind: 'debian', packages: ['openjdk-17-jdk-headless'] },
  locate: onPath('javac'),
  version: printedVersion(['-version'], /javac (\d+(?:\.\d+)*)/),
});

export const KAFKA_NEEDS: Need[] = [
  TOXIPROXY,
  { requirement: JAVA, purpose: 'to run Apache Kafka' },
  { requirement: MAVEN, purpose: 'to collect the Kafka jars from Maven Central' },
  { requirement: LIBRDKAFKA_BUILD, purpose: 'to build the librdkafka client (client: confluent)' },
  { requirement: JDK, purpose: "to compile convoy's Java client (client: java)" },
];
