/**
 * The load driver: autocannon, through its programmatic API, at the scenario's fixed rate
 * (`overallRate`), `connections` keep-alive connections spread over the targets (the router,
 * or the instances round-robin). Each request is built when its connection is ready for it,
 * from the scenario's seeded plan: the next key from the key distribution, and that order's
 * next event in its lifecycle, `POST /orders/{id}/events {"event": ...}`.
 *
 * autocannon's limits, recorded beside its summary (figures.ts): each connection is a closed
 * loop (one request at a time, the next only after the answer), there is no intended start time
 * per request, and its rate limit lets each connection send its share of a second's requests as
 * fast as answers come at the start of each second, then waits for the next second.
 */
import autocannon, { type Result } from 'autocannon';
import { nowMicros, sleep } from '../clock.ts';
import { HistoryWriter } from '../history/writer.ts';
import { MessagePlan } from '../workload/schedule.ts';
import { eventAt } from '../workload/entity.ts';
import { emptyStats, type FromWorker, type Inbox, type WorkerInit } from '../workers/protocol.ts';
import { loopLagMeter } from '../workers/loop-lag.ts';

import { AUTOCANNON_MARK } from './contract.ts';

export async function runLoad(init: WorkerInit, inbox: Inbox, send: (m: FromWorker) => void): Promise<void> {
  const s = init.scenario;
  const g = s.workload.gateway!;
  const history = new HistoryWriter(init.historyFile);
  const stats = emptyStats();
  const requests = { sent: 0, ok: 0, failed: 0 };
  const lag = loopLagMeter();
  let startUs: number | undefined;
  let stopping = false;
  let wake: (() => void) | undefined;
  let instance: ReturnType<typeof autocannon> | undefined;
  inbox((m) => {
    if (m.type === 'start') startUs = m.startUs;
    if (m.type === 'stop') {
      stopping = true;
      instance?.stop();
    }
    wake?.();
  });
  const report = () => send({ type: 'stats', stats: { ...stats, requests: { ...requests }, loopLagMs: lag() } });
  const timer = setInterval(report, 500);
  send({ type: 'ready' });
  while (startUs === undefined && !stopping) await new Promise<void>((r) => (wake = r));
  if (startUs !== undefined) await sleep(Math.max(0, (startUs - nowMicros()) / 1000));

  const plan = new MessagePlan({ seed: s.seed, workload: s.workload });
  const next = plan.messages();
  const entity = s.workload.entity;
  const rate = s.workload.rate.kind === 'fixed' ? s.workload.rate.perSecond : undefined;
  let result: Result | undefined;
  if (!stopping) {
    result = await new Promise<Result>((resolve, reject) => {
      instance = autocannon(
        {
          url: init.gateway!.targetUrls!,
          connections: g.connections,
          amount: plan.total,
          overallRate: rate,
          timeout: g.timeoutS,
          requests: [
            {
              method: 'POST',
              setupRequest(req) {
                const m = next.next();
                // autocannon builds a connection's next request ahead of its answer, so a few
                // are built and never sent: `sent` counts answers (and timeouts), not builds.
                if (m.done) return req; // autocannon stops at `amount`
                req.method = 'POST';
                req.path = `/orders/${encodeURIComponent(m.value.key)}/events`;
                req.headers = { 'content-type': 'application/json' };
                req.body = JSON.stringify({ event: eventAt(entity, m.value.key, m.value.version) });
                return req;
              },
            },
          ],
        },
        (err, r) => (err ? reject(err) : resolve(r)),
      );
      instance.on('response', (_c, status) => {
        requests.sent++;
        if (status >= 200 && status < 300) requests.ok++;
        else requests.failed++;
      });
    });
  }
  history.write({ type: 'mark', at: nowMicros(), name: AUTOCANNON_MARK, detail: result ? summary(result) : { stoppedEarly: true } });
  stats.finished = true;
  report();
  while (!stopping) await new Promise<void>((r) => (wake = r));
  clearInterval(timer);
  history.close();
  send({ type: 'stopped', stats: { ...stats, requests } });
}

/** autocannon's own figures, as it gives them (latency in ms). */
function summary(r: Result): Record<string, unknown> {
  const pick = (h: Record<string, number | undefined>) => ({ mean: h.mean, stddev: h.stddev, min: h.min, p50: h.p50, p90: h.p90, p99: h.p99, p99_9: h.p99_9, max: h.max });
  return {
    latencyMs: pick(r.latency),
    requestsPerSecond: pick(r.requests),
    requests: { total: r.requests.total, sent: r.requests.sent },
    status: { '1xx': r['1xx'], '2xx': r['2xx'], '3xx': r['3xx'], '4xx': r['4xx'], '5xx': r['5xx'] },
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    durationS: r.duration,
    connections: r.connections,
  };
}
