import type { FaultKind, StartedFault } from './contract.ts';
import { checkCapability } from './contract.ts';

/**
 * Single Kafka requests refused, rewritten or held by the request proxy on the client links
 * (broker.requestProxy: true, the local runtime). Every other fault acts on a whole connection,
 * where all requests in flight fail together and are retried in order; this one makes two
 * requests of one connection end differently (batch 1 refused, batch 2 behind it written).
 *
 * Selection, all of which must hold: the API; the run topic's `partitions` (Produce: the
 * partitions in the request; OffsetCommit: in the answer); the `client` (a producer or consumer
 * process name); `leaderOf`, the connections to the node that leads this partition of the run
 * topic when the fault starts (a slow leader); and the `position`, counted per connection and per fault among the requests
 * that passed the rest, in arrival order: every `every`-th, each with probability `share`
 * (seeded), only while `whileInFlight` requests or more (this one included) are in flight on
 * its connection, at most `limit` per connection.
 *
 * Actions: `reject` answers the selected Produce partitions with `error` without forwarding them
 * (the broker never appends them; the rest of the request is forwarded), or a whole OffsetCommit
 * (the group never stores those offsets: a commit the group refuses); `rewrite` forwards, then
 * sets `error` on the selected partitions of the broker's answer (after the append), or on a group
 * answer's error; `holdMs` holds the answer that long (with any action, or alone with `hold`).
 * Answers leave in request order on a connection, so a held one holds those behind it.
 * Evidence: every action (API, partitions, correlation id, original and injected error, hold).
 * A held Fetch answer also records the records it carried per partition; the end evidence sums
 * them as `headOfLine`: the records of the other partitions that waited behind a slow leader.
 * A fault that never acted makes the run incomplete.
 */
const APIS = ['Produce', 'Fetch', 'ListOffsets', 'Metadata', 'OffsetCommit', 'OffsetFetch', 'FindCoordinator', 'JoinGroup', 'Heartbeat', 'LeaveGroup', 'SyncGroup', 'InitProducerId', 'ConsumerGroupHeartbeat'] as const;
/** Answers whose error the proxy can rewrite: per partition (Produce, OffsetCommit) or the top-level one. */
const REWRITABLE = ['Produce', 'OffsetCommit', 'JoinGroup', 'Heartbeat', 'SyncGroup', 'ConsumerGroupHeartbeat'];
const ERRORS = [
  'NOT_ENOUGH_REPLICAS',
  'NOT_ENOUGH_REPLICAS_AFTER_APPEND',
  'NOT_LEADER_OR_FOLLOWER',
  'REQUEST_TIMED_OUT',
  'KAFKA_STORAGE_ERROR',
  'UNKNOWN_TOPIC_OR_PARTITION',
  'CORRUPT_MESSAGE',
  'ILLEGAL_GENERATION',
  'UNKNOWN_MEMBER_ID',
  'STALE_MEMBER_EPOCH',
  'FENCED_MEMBER_EPOCH',
  'REBALANCE_IN_PROGRESS',
  'COORDINATOR_NOT_AVAILABLE',
  'NOT_COORDINATOR',
  'COORDINATOR_LOAD_IN_PROGRESS',
] as const;

const upperSnake = (api: string) => api.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();

interface RuleEvidence {
  id: string;
  considered: number;
  acted: number;
  actions: unknown[];
  /** The nodes a `leaderOf` rule acted on. */
  nodes?: string[];
  /** Held Fetch answers and the records in them, per topic-partition. */
  heldFetch?: { answers: number; holdMsTotal: number; records: Record<string, number> };
}

/**
 * Head-of-line behind a slow leader: the records its held Fetch answers carried, those of the
 * named partition and those of the others that shared its connection (the victims), each held
 * as long as the answer was.
 */
export function headOfLine(held: NonNullable<RuleEvidence['heldFetch']>, topic: string, leaderOf: number | undefined, holdMs: number) {
  const own = leaderOf === undefined ? undefined : `${topic}-${leaderOf}`;
  let ownRecords = 0;
  let victims = 0;
  const victimPartitions: string[] = [];
  for (const [p, n] of Object.entries(held.records)) {
    if (p === own) ownRecords += n;
    else {
      victims += n;
      victimPartitions.push(p);
    }
  }
  return { heldAnswers: held.answers, holdMs, records: ownRecords + victims, ...(own ? { ownPartition: own, ownRecords } : {}), victims, victimPartitions: victimPartitions.sort(), victimAddedMsTotal: victims * holdMs };
}

const request: FaultKind = {
  kind: 'request',
  destructive: false,
  schema: {
    type: 'object',
    properties: {
      apis: { type: 'array', minItems: 1, items: { enum: [...APIS] }, description: 'the Kafka APIs whose requests it selects' },
      partitions: { type: 'array', items: { type: 'integer', minimum: 0 }, description: "the run topic's partitions it selects (Produce, OffsetCommit); default all" },
      client: { type: 'string', description: 'only this producer or consumer process (p-orders-1, c1); default every client' },
      leaderOf: { type: 'integer', minimum: 0, description: "only the connections to the node that leads this partition of the run topic when the fault starts (a slow leader); default every node" },
      position: {
        type: 'object',
        additionalProperties: false,
        description: 'counted per connection and per fault, among the requests the rest selects, in arrival order',
        properties: {
          every: { type: 'integer', minimum: 1, description: 'every n-th (default 1: each)' },
          share: { type: 'number', exclusiveMinimum: 0, maximum: 1, description: 'each with this probability (seeded; default 1)' },
          whileInFlight: { type: 'integer', minimum: 1, description: 'only while at least this many requests, this one included, are in flight on its connection (default 1)' },
          limit: { type: 'integer', minimum: 1, description: 'at most this many per connection (default no limit)' },
          seed: { type: 'integer', description: "the share's seed (default 1)" },
        },
      },
      action: { enum: ['reject', 'rewrite', 'hold'], description: 'reject: answer the selected Produce partitions, or a whole OffsetCommit, with `error`, not forwarded; rewrite: set `error` in the broker\'s answer (after the broker acted); hold: only hold the answer' },
      error: { enum: [...ERRORS], description: 'the Kafka error to answer with (reject, rewrite)' },
      holdMs: { type: 'integer', minimum: 0, maximum: 600_000, description: 'hold the answer this long (and every answer behind it on its connection)' },
    },
    required: ['apis', 'action'],
  },
  doc: {
    summary: 'Single Kafka requests refused, rewritten or held by the request proxy on the client links, so two requests of one connection end differently (batch 1 refused, batch 2 behind it written). Every selector must hold; a fault that never acted makes the run incomplete.',
    needs: 'Kafka on the local runtime with `broker.requestProxy: true` (and `producer.acks` not 0).',
    example: '{ name: refuse-commit, kind: request, apis: [OffsetCommit], action: reject, error: ILLEGAL_GENERATION, position: { limit: 1 }, atMs: 3s, durationMs: 4s }',
    exampleIn: 'broker: { kind: kafka, requestProxy: true }',
  },
  check(spec, scope) {
    const problems = checkCapability(scope.path, scope, 'act on single requests', (c) => c.requestFaults ?? 'this broker has no request proxy');
    const apis = (spec.apis as string[] | undefined) ?? [];
    if (spec.action === 'reject' && (apis.length !== 1 || !['Produce', 'OffsetCommit'].includes(apis[0]!))) problems.push(`${scope.path}.apis: reject acts on one API, Produce or OffsetCommit (apis: [Produce])`);
    if (spec.action === 'reject' && apis[0] === 'OffsetCommit' && spec.partitions !== undefined) problems.push(`${scope.path}.partitions: reject refuses a whole OffsetCommit; leave partitions out`);
    if (spec.action === 'rewrite') {
      const bad = apis.filter((a) => !REWRITABLE.includes(a));
      if (bad.length) problems.push(`${scope.path}.apis: rewrite cannot change ${bad.join(', ')} answers; it rewrites ${REWRITABLE.join(', ')}`);
    }
    if (spec.partitions !== undefined && apis.some((a) => a !== 'Produce' && a !== 'OffsetCommit')) {
      problems.push(`${scope.path}.partitions: partitions select Produce requests and OffsetCommit answers only; leave them out for ${apis.filter((a) => a !== 'Produce' && a !== 'OffsetCommit').join(', ')}`);
    }
    if (spec.action !== 'hold' && spec.error === undefined) problems.push(`${scope.path}.error: ${String(spec.action)} needs the Kafka error to answer with`);
    if (spec.action === 'hold' && !spec.holdMs) problems.push(`${scope.path}.holdMs: hold needs holdMs above 0`);
    if (typeof spec.client === 'string' && ![...scope.consumers, ...scope.producers, ...Object.keys(scope.producerProcesses)].some((n) => spec.client === n || String(spec.client).startsWith(`p-${n}-`))) {
      problems.push(`${scope.path}.client: no producer or consumer process ${JSON.stringify(spec.client)} in this scenario (consumers ${scope.consumers.join(', ')}; producer processes are p-<producer>-<n>)`);
    }
    return problems;
  },
  async start(spec, ctx): Promise<StartedFault> {
    const proxy = ctx.deployment.requestProxy;
    if (!proxy) throw new Error(`request fault ${spec.name}: the deployment has no request proxy (broker.requestProxy: true)`);
    const rule = {
      id: spec.name,
      apis: (spec.apis as string[]).map(upperSnake),
      topic: ctx.names.prefix,
      ...(spec.partitions ? { partitions: spec.partitions } : {}),
      ...(spec.client ? { client: `${ctx.names.prefix}-${String(spec.client)}` } : {}),
      ...(spec.leaderOf !== undefined ? { leaderOf: spec.leaderOf } : {}),
      position: spec.position ?? {},
      action: spec.action,
      ...(spec.error ? { error: spec.error } : {}),
      holdMs: spec.holdMs ?? 0,
    };
    const call = async (method: string, path: string, body?: unknown): Promise<RuleEvidence> => {
      if (!proxy.running()) throw new Error(`the request proxy is not running; its last lines: ${proxy.tail().slice(-5).join(' | ')}`);
      const res = await fetch(`${proxy.controlUrl}${path}`, { method, ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
      const json = (await res.json()) as RuleEvidence & { error?: string };
      if (!res.ok) throw new Error(`request proxy: ${json.error ?? `HTTP ${res.status}`}`);
      return json;
    };
    await call('POST', '/rules', rule);
    let ended: unknown;
    return {
      evidence: { rule },
      async end() {
        if (ended) return ended;
        const got = await call('DELETE', `/rules/${encodeURIComponent(spec.name)}`);
        // What the proxy passed through untouched (an API version its codec does not know) goes to the run's log.
        const health = (await call('GET', '/health')) as unknown as { warnings?: string[] };
        for (const w of health.warnings ?? []) ctx.log(`request proxy: ${w}`);
        ended = {
          ...(health.warnings?.length ? { warnings: health.warnings } : {}),
          considered: got.considered,
          acted: got.acted,
          ...(got.nodes ? { nodes: got.nodes } : {}),
          ...(got.heldFetch ? { headOfLine: headOfLine(got.heldFetch, ctx.names.prefix, spec.leaderOf as number | undefined, Number(spec.holdMs ?? 0)) } : {}),
          actions: got.actions,
          ...(got.acted === 0 ? { unexercised: `no request was selected (${got.considered} ${rule.apis.join('/')} request(s) of the selected clients and partitions were considered)` } : {}),
        };
        return ended;
      },
    };
  },
};
export default request;
