// CLI: node --import tsx brokers/pubsub/emulator/main.ts [--port 8085] [--host 127.0.0.1] [--control-port N]
// Prints one ready line (JSON) on stdout once it listens; SIGINT/SIGTERM close it.
import { parseArgs } from 'node:util';
import { EMULATOR_NAME, EMULATOR_VERSION, startEmulator } from './index.ts';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8085' },
      host: { type: 'string', default: '127.0.0.1' },
      'control-port': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write('usage: main.ts [--port 8085] [--host 127.0.0.1] [--control-port N]\n');
    return;
  }
  const emulator = await startEmulator({
    port: Number(values.port),
    host: values.host,
    ...(values['control-port'] !== undefined ? { controlPort: Number(values['control-port']) } : {}),
  });
  process.stdout.write(`${JSON.stringify({ event: 'ready', service: EMULATOR_NAME, version: EMULATOR_VERSION, emulatorHost: emulator.emulatorHost, controlPort: emulator.controlPort ?? null })}\n`);
  const stop = (): void => {
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`pubsub emulator failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
