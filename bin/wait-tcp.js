#!/usr/bin/env node
// Waits until every host:port given accepts a TCP connection (a name that does not resolve yet
// counts as not yet), trying each again every second: the Helm chart's runner Job starts its run
// once its agents listen. Exit 0 when all do; 3, with one line naming those that do not, after
// --timeout seconds (default 300); 2 for bad input. Plain Node, no dependencies: it runs in the
// image before anything else.
import { connect } from 'node:net';

const args = process.argv.slice(2);
let timeoutS = 300;
const addresses = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--timeout') timeoutS = Number(args[++i]);
  else addresses.push(args[i]);
}
const parsed = addresses.map((a) => /^(.+):(\d{1,5})$/.exec(a));
if (!Number.isFinite(timeoutS) || timeoutS <= 0 || addresses.length === 0 || parsed.some((m) => !m)) {
  console.error('usage: wait-tcp.js [--timeout seconds] host:port...');
  process.exit(2);
}

const accepts = (host, port) =>
  new Promise((resolve) => {
    const s = connect({ host, port: Number(port), timeout: 2_000 });
    const done = (ok) => (s.destroy(), resolve(ok));
    s.once('connect', () => done(true));
    s.once('timeout', () => done(false));
    s.once('error', () => done(false));
  });

const deadline = Date.now() + timeoutS * 1_000;
let waiting = parsed.map((m) => ({ address: m[0], host: m[1], port: m[2] }));
while (waiting.length > 0) {
  const ok = await Promise.all(waiting.map((w) => accepts(w.host, w.port)));
  waiting = waiting.filter((_, i) => !ok[i]);
  if (waiting.length === 0) break;
  if (Date.now() >= deadline) {
    console.error(`wait-tcp: no connection after ${timeoutS} s to ${waiting.map((w) => w.address).join(', ')}`);
    process.exit(3);
  }
  await new Promise((r) => setTimeout(r, 1_000));
}
console.error(`wait-tcp: ${addresses.join(', ')} accept connections`);
