/**
 * The Pub/Sub API's services, loaded at run time from the .proto files that
 * @google-cloud/pubsub ships (google/pubsub/v1) and google-gax (google/api, google/protobuf):
 * nothing is generated or copied into convoy. Messages arrive as plain objects with camelCase
 * fields, longs as strings, enums as their names, defaults filled in.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { existsSync } from 'node:fs';
import { loadPackageDefinition, type ServiceDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

/** The folder of an installed package (its package.json's), resolved from `from`. */
function packageDir(name: string, from: string): string {
  const require = createRequire(from);
  let dir = dirname(require.resolve(name));
  while (!existsSync(join(dir, 'package.json')) && dir !== dirname(dir)) dir = dirname(dir);
  return dir;
}

export interface PubsubServices {
  publisher: ServiceDefinition;
  subscriber: ServiceDefinition;
}

let loaded: PubsubServices | undefined;

export function pubsubServices(): PubsubServices {
  if (loaded) return loaded;
  const pubsub = packageDir('@google-cloud/pubsub', import.meta.url);
  const gax = packageDir('google-gax', join(pubsub, 'package.json'));
  const definition = loadSync('google/pubsub/v1/pubsub.proto', {
    includeDirs: [join(pubsub, 'build', 'protos'), join(gax, 'build', 'protos')],
    keepCase: false,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const v1 = (loadPackageDefinition(definition) as unknown as { google: { pubsub: { v1: Record<string, { service: ServiceDefinition }> } } }).google.pubsub.v1;
  loaded = { publisher: v1.Publisher!.service, subscriber: v1.Subscriber!.service };
  return loaded;
}
