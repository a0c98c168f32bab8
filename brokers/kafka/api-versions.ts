/**
 * What a Kafka broker says about itself before any login: an ApiVersions v3 request (the one
 * every client sends first, answered before SASL) gives the API version ranges and the
 * finalized features, among them `metadata.version`. kafkajs speaks only ApiVersions v2, which
 * carries no features, so this asks over a socket of its own (TLS when the connection has it).
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface BrokerApiVersions {
  /** Per API key: [min, max]. */
  apis: Record<number, [number, number]>;
  /** Finalized feature levels, e.g. { 'metadata.version': 27 }. */
  features: Record<string, number>;
}

class Reader {
  at = 0;
  constructor(private b: Buffer) {}
  i16 = () => ((this.at += 2), this.b.readInt16BE(this.at - 2));
  i32 = () => ((this.at += 4), this.b.readInt32BE(this.at - 4));
  i64 = () => ((this.at += 8), this.b.readBigInt64BE(this.at - 8));
  uvarint(): number {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = this.b[this.at++];
      v |= (byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v >>> 0;
    }
  }
  compactString(): string {
    const n = this.uvarint() - 1;
    this.at += n;
    return this.b.toString('utf8', this.at - n, this.at);
  }
  skipTags(): void {
    for (let n = this.uvarint(); n > 0; n--) {
      this.uvarint();
      this.at += this.uvarint();
    }
  }
}

function request(correlationId: number): Buffer {
  const clientId = Buffer.from('convoy-probe');
  const name = Buffer.from('convoy');
  const body = Buffer.concat([
    Buffer.from([0, 18, 0, 3]), // api key 18 (ApiVersions), version 3
    Buffer.from([(correlationId >>> 24) & 0xff, (correlationId >>> 16) & 0xff, (correlationId >>> 8) & 0xff, correlationId & 0xff]),
    Buffer.from([0, clientId.length]),
    clientId,
    Buffer.from([0]), // header tags
    Buffer.from([name.length + 1]),
    name,
    Buffer.from([2, 0x31]), // client software version "1"
    Buffer.from([0]), // body tags
  ]);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

/** Parses an ApiVersions v3 response body (after the size and correlation id). */
export function parseApiVersions(b: Buffer): BrokerApiVersions {
  const r = new Reader(b);
  const error = r.i16();
  if (error !== 0) throw new Error(`ApiVersions error code ${error}`);
  const apis: BrokerApiVersions['apis'] = {};
  for (let n = r.uvarint() - 1; n > 0; n--) {
    const key = r.i16();
    apis[key] = [r.i16(), r.i16()];
    r.skipTags();
  }
  r.i32(); // throttle time
  const features: Record<string, number> = {};
  for (let n = r.uvarint(); n > 0; n--) {
    const tag = r.uvarint();
    const size = r.uvarint();
    const end = r.at + size;
    if (tag === 2) {
      // FinalizedFeatures: name, max version level, min version level
      for (let m = r.uvarint() - 1; m > 0; m--) {
        const feature = r.compactString();
        features[feature] = r.i16();
        r.i16();
        r.skipTags();
      }
    } else if (tag === 1) r.i64();
    r.at = end;
  }
  return { apis, features };
}

/** Asks one broker (`host:port`) for its ApiVersions v3 answer. */
export function brokerApiVersions(address: string, tls: boolean | { ca?: string; rejectUnauthorized?: boolean }, timeoutMs = 5_000): Promise<BrokerApiVersions> {
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const options = typeof tls === 'object' ? tls : {};
    const socket: Socket = tls ? tlsConnect({ host, port, servername: host, ...options }) : tcpConnect({ host, port });
    const timer = setTimeout(() => (socket.destroy(), reject(new Error(`no ApiVersions answer from ${address} within ${timeoutMs} ms`))), timeoutMs);
    let got = Buffer.alloc(0);
    socket.once(tls ? 'secureConnect' : 'connect', () => socket.write(request(1)));
    socket.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (got.length < 4 || got.length < 4 + got.readInt32BE(0)) return;
      clearTimeout(timer);
      socket.destroy();
      try {
        resolve(parseApiVersions(got.subarray(8, 4 + got.readInt32BE(0))));
      } catch (err) {
        reject(err);
      }
    });
    socket.on('error', (err) => (clearTimeout(timer), reject(err)));
  });
}
