import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Where the Debian package keeps the scripts that run as the calling user (as root: root). */
export const RABBITMQ_BIN_DIR = process.env.CONVOY_RABBITMQ_BIN_DIR || '/usr/lib/rabbitmq/bin';

/** The installed RabbitMQ version, from the package's lib folder (rabbitmq_server-3.10.8). */
export function installedVersion(binDir = RABBITMQ_BIN_DIR): string | undefined {
  try {
    const dir = readdirSync(join(binDir, '..', 'lib')).find((d) => d.startsWith('rabbitmq_server-'));
    return dir?.slice('rabbitmq_server-'.length);
  } catch {
    return undefined;
  }
}
