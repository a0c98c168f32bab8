// Public API of the Service Bus emulator: start it from code, manage queues, close it.
import { loadConfigFile, parseConfig, type EmulatorConfig, type QueuePropertiesInput } from "./config.ts";
import { startAdminServer, queueInfo, type AdminServer } from "./admin/http.ts";
import { startAmqpServer, type AmqpServer } from "./amqp/server.ts";
import { Namespace } from "./model/namespace.ts";
import type { QueueStats } from "./model/queue.ts";

export type { EmulatorConfig, QueuePropertiesInput, QueueStats };

/** For a run's environment section: which emulator, which revision of its behaviour. */
export const EMULATOR_NAME = "convoy-servicebus-emulator";
export const EMULATOR_VERSION = "0.1.0";
export { parseConfig, loadConfigFile };

export interface EmulatorOptions {
  /** AMQP port; 0 picks a free one. Default 5672. */
  port?: number;
  /** Interface to listen on. Default 127.0.0.1 (use 0.0.0.0 inside a container). */
  host?: string;
  /** A Config.json path, an already parsed Config.json document, or a parsed EmulatorConfig. */
  config?: string | EmulatorConfig | Record<string, unknown>;
  /** Also serve the HTTP queue-management API on this port (0 picks one). Off when undefined. */
  adminPort?: number;
  /**
   * AMQP idle timeout we advertise (ms). Clients heartbeat at half of it; a connection silent for
   * twice this long (a black-holed TCP connection) is dropped and its links cleaned up. Default 60000.
   */
  idleTimeoutMs?: number;
  /** Where to write diagnostics (startup warnings). Default: nowhere. */
  log?: (line: string) => void;
}

export interface Emulator {
  readonly port: number;
  readonly host: string;
  /** Set when adminPort was given. */
  readonly adminPort: number | undefined;
  /** A connection string the unmodified SDK accepts (UseDevelopmentEmulator=true, plain TCP). */
  readonly connectionString: string;
  createQueue(name: string, properties?: QueuePropertiesInput): void;
  /** Deletes the queue and its DLQ; links on it are detached with amqp:not-found. */
  deleteQueue(name: string): boolean;
  queueNames(): string[];
  queueStats(name: string): QueueStats | undefined;
  /** Properties and counts in the admin API's JSON shape. */
  describeQueue(name: string): Record<string, unknown> | undefined;
  close(): Promise<void>;
}

function resolveConfig(config: EmulatorOptions["config"]): EmulatorConfig | undefined {
  if (config === undefined) return undefined;
  if (typeof config === "string") return loadConfigFile(config);
  if ("queues" in config && Array.isArray((config as EmulatorConfig).queues)) return config as EmulatorConfig;
  return parseConfig(config);
}

export function connectionStringFor(host: string, port: number): string {
  const h = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return `Endpoint=sb://${h}:${port};SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true;`;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const host = options.host ?? "127.0.0.1";
  const log = options.log ?? (() => undefined);
  const config = resolveConfig(options.config);
  const namespace = new Namespace(config?.namespace);
  for (const q of config?.queues ?? []) namespace.createQueue(q.name, q.properties);
  for (const what of config?.ignored ?? []) log(`warning: ${what} is not supported by this emulator and was ignored`);

  const amqp: AmqpServer = await startAmqpServer({
    port: options.port ?? 5672,
    host,
    namespace,
    idleTimeoutMs: options.idleTimeoutMs ?? 60_000,
    log,
  });
  let admin: AdminServer | undefined;
  if (options.adminPort !== undefined) {
    try {
      admin = await startAdminServer(namespace, options.adminPort, host);
    } catch (err) {
      await amqp.close();
      throw err;
    }
  }
  let closing: Promise<void> | undefined;
  return {
    port: amqp.port,
    host,
    adminPort: admin?.port,
    connectionString: connectionStringFor(host, amqp.port),
    createQueue: (name, properties) => void namespace.createQueue(name, properties ?? {}),
    deleteQueue: (name) => namespace.deleteQueue(name),
    queueNames: () => namespace.list().map((q) => q.name),
    queueStats: (name) => namespace.getQueue(name)?.stats(),
    describeQueue: (name) => {
      const q = namespace.getQueue(name);
      return q ? queueInfo(q) : undefined;
    },
    close: () => {
      closing ??= (async () => {
        await Promise.all([amqp.close(), admin?.close()]);
        namespace.close();
      })();
      return closing;
    },
  };
}
