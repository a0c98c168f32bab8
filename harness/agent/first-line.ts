/**
 * The first line on a fresh connection, read by hand: after it, the connection may become a raw
 * byte pipe (an agent's worker connection), so nothing past the line may be consumed. Bytes that
 * came with it are put back on the stream, and it is left paused: whoever reads on attaches its
 * listener and resumes it.
 */
import type { Socket } from 'node:net';

export function readFirstLine(socket: Socket, maxChars: number, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = Buffer.alloc(0);
    const done = (err: Error | null, line?: string) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', onEnd);
      if (err) reject(err);
      else resolve(line!);
    };
    const onData = (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      const nl = got.indexOf(0x0a);
      if (nl < 0) {
        if (got.length > maxChars) done(new Error(`a first line of more than ${maxChars} bytes`));
        return;
      }
      socket.pause();
      const rest = got.subarray(nl + 1);
      if (rest.length) socket.unshift(rest);
      done(null, got.subarray(0, nl).toString('utf8'));
    };
    const onEnd = () => done(new Error('the connection closed before its first line'));
    const timer = setTimeout(() => done(new Error(`no first line within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('error', onEnd);
    socket.resume();
  });
}
