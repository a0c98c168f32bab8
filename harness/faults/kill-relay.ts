import type { FaultKind } from './contract.ts';
import { killWorker, selfKill } from './contract.ts';

/**
 * Kills an outbox relay of the order service (workload.gateway, mode outbox) with -9; a fresh
 * one for the same lane starts at the window's end and publishes the rows the dead one never
 * marked sent. `when: after-publish` (default) makes the relay kill itself right after its
 * next batch was published and acked, before the mark: the crash between the effect and its
 * record that turns into duplicates, and never into reorders.
 */
const killRelay: FaultKind = {
  kind: 'kill-relay',
  destructive: false,
  schema: {
    type: 'object',
    properties: {
      relay: { type: 'string', pattern: '^relay-[1-9][0-9]*$', description: 'relay-1, relay-2, ... (one per lane). Default relay-1.' },
      when: { enum: ['now', 'after-publish'], description: 'now: kill -9 at once; after-publish (default): after its next acked batch, before marking it sent.' },
    },
  },
  doc: {
    summary: 'kill -9 an outbox relay of the order service; a fresh one for the same lane starts at the window\'s end and publishes the rows the dead one never marked sent: duplicates, never reorders.',
    needs: 'An order service with an outbox: `workload.gateway: { mode: outbox }`.',
    example: '{ name: kill-relay-1, kind: kill-relay, relay: relay-1, when: after-publish, atMs: 5s, durationMs: 2s }',
    exampleIn: 'broker: { kind: kafka }\nworkload: { rate: { kind: fixed, perSecond: 100 }, gateway: { instances: 2, mode: outbox, connections: 4 } }',
  },
  check(spec, scope) {
    const relays = scope.relays ?? [];
    if (relays.length === 0) return [`${scope.path}: kill-relay needs an order service with an outbox (workload.gateway.mode: outbox); this scenario has no relay`];
    const name = spec.relay ?? 'relay-1';
    return relays.includes(String(name)) ? [] : [`${scope.path}.relay: no relay ${JSON.stringify(name)} in this scenario; expected one of ${relays.join(', ')} (one per lane)`];
  },
  async start(spec, ctx) {
    if (!ctx.gateway) throw new Error('kill-relay needs an order service with an outbox (workload.gateway.mode: outbox)');
    const id = typeof spec.relay === 'string' ? spec.relay : 'relay-1';
    const w = ctx.gateway.relays().find((r) => r.id === id);
    if (!w) throw new Error(`no relay named "${id}" (have ${ctx.gateway.relays().map((r) => r.id).join(', ') || 'none'})`);
    const killed = await killWorker(w, 'kill-relay', spec.when !== 'now');
    let ended = false;
    return {
      evidence: { relay: id, ...killed },
      async end() {
        if (ended) return undefined;
        ended = true;
        await ctx.gateway!.restartRelay(id);
        return { restarted: true, pid: ctx.gateway!.relays().find((r) => r.id === id)?.pid };
      },
    };
  },
  worker: {
    relay: (_args, side) => ({ afterPublish: selfKill(side) }),
  },
};
export default killRelay;
