#!/usr/bin/env node
// Entry point: registers tsx so the TypeScript sources run as they are (no build step).
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../harness/cli/main.ts');
const code = await main(process.argv.slice(2));
// Exit explicitly: a client library's stray timer must never turn a finished run into a hang.
process.exit(code);
