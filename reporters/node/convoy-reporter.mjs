// convoy's reporter for a consumer under test, in Node (docs/consumer-under-test.md). No
// dependencies: copy this file into your service, or import it from a convoy checkout.
//
//   import { openReporter } from './convoy-reporter.mjs';
//   const report = await openReporter();        // CONVOY_REPORT_SOCKET or CONVOY_REPORT_FILE
//   report.ready();                             // once the consumer has joined its group
//   report.start(message.headers, { lane: String(partition), offset: Number(message.offset) });
//   ... handle the message ...
//   report.end(message.headers);                // or report.end(headers, 'error')
//   await report.close();
//
// Outside a convoy run (neither variable set) every call does nothing.
import { appendFileSync, openSync, closeSync } from 'node:fs';
import { createConnection } from 'node:net';

/** Microseconds since the Unix epoch, from the monotonic clock placed on the system clock once. */
const offsetMs = (() => {
  // At a tick of the millisecond clock, the monotonic clock's place on it is known to a few µs.
  const first = Date.now();
  let now;
  while ((now = Date.now()) === first);
  return now - performance.now();
})();
const nowMicros = () => Math.round((offsetMs + performance.now()) * 1000);

/**
 * Header values as strings: kafkajs gives Buffers, an array keeps its last value, an SQS
 * message attribute ({ DataType, StringValue }) gives its StringValue.
 */
function plainHeaders(headers) {
  const out = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    let last = Array.isArray(v) ? v[v.length - 1] : v;
    if (last && typeof last === 'object' && !Buffer.isBuffer(last) && 'StringValue' in last) last = last.StringValue;
    if (last !== undefined && last !== null) out[k] = Buffer.isBuffer(last) ? last.toString('utf8') : String(last);
  }
  return out;
}

export async function openReporter(env = process.env) {
  let write;
  let close = async () => {};
  if (env.CONVOY_REPORT_SOCKET) {
    const socket = createConnection(env.CONVOY_REPORT_SOCKET);
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.setNoDelay(true);
    write = (line) => socket.write(line);
    close = () => new Promise((resolve) => socket.end(resolve));
  } else if (env.CONVOY_REPORT_FILE) {
    const fd = openSync(env.CONVOY_REPORT_FILE, 'a');
    // One write per line, appended whole: a reader never sees half a line followed by another's.
    write = (line) => appendFileSync(fd, line);
    close = async () => closeSync(fd);
  } else {
    write = () => {};
  }
  const send = (o) => write(JSON.stringify(o) + '\n');
  send({ type: 'hello', protocol: 1, process: env.CONVOY_PROCESS });
  return {
    ready: () => send({ type: 'ready', at: nowMicros() }),
    start(headers, where = {}) {
      const o = { type: 'start', headers: plainHeaders(headers), at: nowMicros() };
      if (where.lane !== undefined) o.lane = String(where.lane);
      if (where.offset !== undefined) o.offset = Number(where.offset);
      send(o);
    },
    end: (headers, outcome = 'ok') => send({ type: 'end', headers: plainHeaders(headers), at: nowMicros(), outcome }),
    close,
  };
}
