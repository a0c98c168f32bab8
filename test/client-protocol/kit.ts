/**
 * The client protocol's conformance kit: any client implementation, given as a command, through
 * the protocol's cases. Each case starts a fresh client process and throws (an assertion) when
 * the client breaks the rule it checks. The cases that need a broker take its endpoint and
 * settings; what a broker must do with deliveries and settlements is the broker contract's own
 * conformance (test/broker/contract.ts), which runs through a client process too.
 */
import assert from 'node:assert/strict';
import { ClientConnection } from '../../harness/client-protocol/connection.ts';
import type { ConfigureMessage } from '../../harness/client-protocol/messages.ts';

export interface KitTarget {
  command: string[];
  /** Where the client's broker is, and its settings (as a worker would configure it). */
  configure(role: 'producer' | 'consumer', tag: string): Omit<ConfigureMessage, 'type'>;
  /** How long the handshake may take (a consumer joins its group). */
  handshakeMs?: number;
}

const quiet = () => {};
const open = (t: KitTarget, role: 'producer' | 'consumer', tag: string) =>
  ClientConnection.open({ command: t.command, configure: t.configure(role, tag), log: quiet, handshakeMs: t.handshakeMs ?? 20_000, onFailure: quiet });

/** Sends `n` messages of key k<i> and waits for all answers. */
async function sendAll(c: ClientConnection, n: number): Promise<{ id: number; lane?: string; offset?: number }[]> {
  const acks: { id: number; lane?: string; offset?: number }[] = [];
  const done = new Promise<void>((resolve, reject) => {
    c.on('ack', (m) => {
      acks.push(m);
      if (acks.length === n) resolve();
    });
    c.on('failure', (m) => reject(new Error(`send ${m.id} failed: ${m.message}`)));
    void c.failed().catch(reject);
  });
  for (let i = 0; i < n; i++) c.write({ type: 'send', id: i + 1, key: `k${i % 4}`, payload: Buffer.from(`m${i}`).toString('base64') });
  await Promise.race([done, new Promise((_, r) => setTimeout(() => r(new Error(`${acks.length} of ${n} sends answered in 20 s`)), 20_000).unref())]);
  return acks;
}

export const KIT_CASES: Record<string, (t: KitTarget) => Promise<void>> = {
  /** hello with this protocol version, ready after configure, a clock that maps within 5 ms. */
  async handshake(t) {
    const c = await open(t, 'producer', 'handshake');
    try {
      assert.equal(c.hello?.protocol, 1);
      assert.ok(Array.isArray(c.hello?.capabilities));
      assert.ok(c.clock && c.clock.errorUs < 5_000, `clock maps within ${c.clock?.errorUs} µs`);
    } finally {
      await c.close();
    }
  },
  /** Every send answered by an ack naming it, with its lane and offset; offsets rise within a lane. */
  async 'send and ack'(t) {
    const c = await open(t, 'producer', 'send');
    try {
      const acks = await sendAll(c, 20);
      assert.deepEqual(acks.map((a) => a.id).sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i + 1));
      for (const a of acks) assert.ok(typeof a.lane === 'string' && typeof a.offset === 'number', `ack ${a.id} without lane or offset`);
      const byLane = new Map<string, number[]>();
      for (const a of acks.sort((x, y) => x.id - y.id)) byLane.set(a.lane!, [...(byLane.get(a.lane!) ?? []), a.offset!]);
      for (const [lane, offsets] of byLane) assert.equal(new Set(offsets).size, offsets.length, `lane ${lane}: an offset twice`);
    } finally {
      await c.close();
    }
  },
  /** Each declared capability answers its request. */
  async capabilities(t) {
    const c = await open(t, 'producer', 'caps');
    try {
      for (const cap of c.hello!.capabilities) {
        if (cap === 'commits-later' || cap === 'describe-group' || cap === 'headers') continue;
        await c.request(cap);
      }
      await assert.rejects(c.request('describe-group'), /cannot describe-group/);
    } finally {
      await c.close();
    }
  },
  /** close is answered by closed, and the process exits by itself. */
  async close(t) {
    const c = await open(t, 'producer', 'close');
    const started = Date.now();
    await c.close(5_000);
    assert.ok(Date.now() - started < 5_000, `close took ${Date.now() - started} ms`);
  },
  /** A send after which the client dies or writes nonsense fails the connection, with its last log lines; no hang. */
  async 'a crash mid-run'(t) {
    const c = await open(t, 'producer', 'crash');
    const failed = c.failed().then(
      () => undefined,
      (e: Error & { detail?: string[] }) => e,
    );
    try {
      // A healthy client acks; the kit then kills it.
      c.write({ type: 'send', id: 1, key: 'k', payload: Buffer.from('x').toString('base64') });
      await new Promise((r) => setTimeout(r, 500));
      (c as unknown as { child: { kill(s: string): void } }).child.kill('SIGKILL');
      const e = await Promise.race([failed, new Promise<undefined>((r) => setTimeout(() => r(undefined), 5_000))]);
      assert.ok(e, 'the connection did not fail when its process died');
      assert.match(e.message, /exited|closed/);
    } finally {
      await c.close();
    }
  },
};

/** Runs every case; returns the ones that failed, with why. */
export async function runKit(t: KitTarget, only?: string[]): Promise<Record<string, string>> {
  const failures: Record<string, string> = {};
  for (const [name, run] of Object.entries(KIT_CASES)) {
    if (only && !only.includes(name)) continue;
    try {
      await run(t);
    } catch (e) {
      failures[name] = (e as Error).message;
    }
  }
  return failures;
}
