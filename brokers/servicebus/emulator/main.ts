// CLI: node --import tsx brokers/servicebus/emulator/main.ts [--port 5672] [--host 127.0.0.1]
//        [--config Config.json] [--admin-port 5300] [--idle-timeout-ms 60000]
// Prints one ready line (JSON) on stdout once both listeners are up; SIGINT/SIGTERM close it.
import { parseArgs } from "node:util";
import { EMULATOR_NAME, EMULATOR_VERSION, startEmulator } from "./index.ts";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "5672" },
      host: { type: "string", default: "127.0.0.1" },
      config: { type: "string" },
      "admin-port": { type: "string" },
      "idle-timeout-ms": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(
      "usage: main.ts [--port 5672] [--host 127.0.0.1] [--config Config.json] [--admin-port N] [--idle-timeout-ms 60000]\n",
    );
    return;
  }
  const emulator = await startEmulator({
    port: Number(values.port),
    host: values.host,
    config: values.config,
    adminPort: values["admin-port"] !== undefined ? Number(values["admin-port"]) : undefined,
    idleTimeoutMs: values["idle-timeout-ms"] !== undefined ? Number(values["idle-timeout-ms"]) : undefined,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(
    `${JSON.stringify({
      event: "ready",
      service: EMULATOR_NAME,
      version: EMULATOR_VERSION,
      host: emulator.host,
      port: emulator.port,
      adminPort: emulator.adminPort ?? null,
      queues: emulator.queueNames(),
      connectionString: emulator.connectionString,
    })}\n`,
  );
  const stop = (): void => {
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`servicebus emulator failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
